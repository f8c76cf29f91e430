-- =====================================================================
-- crm.sql  --  Operational database for "Northwind Cloud" (a mid-size
-- B2B SaaS company): CRM, marketing automation, billing, customer
-- support, integrations, and the employee/customer health-plan
-- membership line of business acquired in 2021.
--
-- Target: PostgreSQL 15.  Generated from the production migration
-- history and cleaned up for documentation purposes.
-- =====================================================================

CREATE SCHEMA ref;
CREATE SCHEMA iam;
CREATE SCHEMA crm;
CREATE SCHEMA billing;
CREATE SCHEMA marketing;
CREATE SCHEMA support;
CREATE SCHEMA health;
CREATE SCHEMA intg;
CREATE SCHEMA analytics;
CREATE SCHEMA audit;

COMMENT ON SCHEMA ref IS 'Shared reference / lookup data (ISO codes, industries, time zones).';
COMMENT ON SCHEMA iam IS 'Identity and access management for internal staff users.';
COMMENT ON SCHEMA crm IS 'Customer relationship management: accounts, contacts, leads, pipeline, quotes, contracts.';
COMMENT ON SCHEMA billing IS 'Subscription billing, invoicing, payments, collections and revenue accounting.';
COMMENT ON SCHEMA marketing IS 'Marketing automation: campaigns, email, segments, forms, web tracking, attribution.';
COMMENT ON SCHEMA support IS 'Customer support desk: tickets, SLAs, knowledge base, satisfaction surveys.';
COMMENT ON SCHEMA health IS 'Health-plan membership and claims (Northwind Health Benefits line of business).';
COMMENT ON SCHEMA intg IS 'Third-party integrations, webhooks, data imports and exports.';
COMMENT ON SCHEMA analytics IS 'Derived snapshots and reporting views consumed by BI dashboards.';
COMMENT ON SCHEMA audit IS 'Append-only audit and compliance logging.';

-- ---------------------------------------------------------------------
-- public: framework / application housekeeping
-- ---------------------------------------------------------------------

CREATE TABLE public.schema_migrations (
    version      varchar(32) PRIMARY KEY,
    description  text,
    applied_at   timestamptz NOT NULL DEFAULT now(),
    checksum     varchar(64)
);
COMMENT ON TABLE public.schema_migrations IS 'One row per applied database migration (managed by the migration tool; do not edit by hand).';

CREATE TABLE public.app_settings (
    setting_key   varchar(100) PRIMARY KEY,
    setting_value jsonb NOT NULL,
    is_secret     boolean NOT NULL DEFAULT false,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    updated_by    varchar(100)
);
COMMENT ON TABLE public.app_settings IS 'Global key/value application configuration. One row per setting.';
COMMENT ON COLUMN public.app_settings.is_secret IS 'When true the value is masked in the admin UI and excluded from config exports.';

CREATE TABLE public.feature_flags (
    flag_key      varchar(100) PRIMARY KEY,
    description   text,
    enabled       boolean NOT NULL DEFAULT false,
    rollout_pct   smallint NOT NULL DEFAULT 0 CHECK (rollout_pct BETWEEN 0 AND 100),
    created_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE public.feature_flags IS 'Product feature toggles. One row per flag; rollout_pct controls percentage-based rollout.';

CREATE TABLE public.job_queue (
    job_id        bigserial PRIMARY KEY,
    queue_name    varchar(64) NOT NULL,
    payload       jsonb NOT NULL,
    status        varchar(16) NOT NULL DEFAULT 'pending',
    attempts      smallint NOT NULL DEFAULT 0,
    run_after     timestamptz NOT NULL DEFAULT now(),
    locked_by     varchar(64),
    locked_at     timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------
-- ref: reference data
-- ---------------------------------------------------------------------

CREATE TABLE ref.currencies (
    currency_code  char(3) PRIMARY KEY,
    currency_name  varchar(64) NOT NULL,
    minor_units    smallint NOT NULL DEFAULT 2,
    symbol         varchar(8),
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE ref.currencies IS 'ISO 4217 currencies. One row per currency code.';
COMMENT ON COLUMN ref.currencies.minor_units IS 'Number of decimal places used by the currency (e.g. 2 for USD, 0 for JPY).';

CREATE TABLE ref.countries (
    country_code   char(2) PRIMARY KEY,
    iso3_code      char(3) NOT NULL UNIQUE,
    country_name   varchar(100) NOT NULL,
    region         varchar(32),
    default_currency_code char(3) REFERENCES ref.currencies (currency_code),
    is_eu_member   boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE ref.countries IS 'ISO 3166-1 countries. One row per country.';
COMMENT ON COLUMN ref.countries.region IS 'Sales region the country rolls up to: NA, EMEA, APAC or LATAM.';

CREATE TABLE ref.country_subdivisions (
    subdivision_code varchar(8) PRIMARY KEY,
    country_code     char(2) NOT NULL REFERENCES ref.countries (country_code),
    subdivision_name varchar(100) NOT NULL,
    subdivision_type varchar(32)
);
COMMENT ON TABLE ref.country_subdivisions IS 'ISO 3166-2 states, provinces and regions within a country.';

CREATE TABLE ref.timezones (
    tz_name        varchar(64) PRIMARY KEY,
    utc_offset_min integer NOT NULL,
    display_name   varchar(100)
);

CREATE TABLE ref.languages (
    lang_code      varchar(8) PRIMARY KEY,
    language_name  varchar(64) NOT NULL,
    is_supported_ui boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE ref.languages IS 'BCP-47 language codes used for contact preferences, email templates and KB translations.';

CREATE TABLE ref.industries (
    industry_id    integer PRIMARY KEY,
    naics_code     varchar(6),
    industry_name  varchar(128) NOT NULL,
    parent_industry_id integer REFERENCES ref.industries (industry_id)
);
COMMENT ON TABLE ref.industries IS 'Industry taxonomy (NAICS-based, two levels) used to classify customer accounts.';

-- ---------------------------------------------------------------------
-- iam: internal users, teams, roles
-- ---------------------------------------------------------------------

CREATE TABLE iam.users (
    user_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email          varchar(255) NOT NULL UNIQUE,
    full_name      varchar(200) NOT NULL,
    title          varchar(100),
    manager_user_id bigint REFERENCES iam.users (user_id),
    tz_name        varchar(64) REFERENCES ref.timezones (tz_name),
    default_territory_id bigint,
    is_active      boolean NOT NULL DEFAULT true,
    is_agent       boolean NOT NULL DEFAULT false,
    last_login_at  timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    deactivated_at timestamptz
);
COMMENT ON TABLE iam.users IS 'Internal staff users (sales reps, marketers, support agents, finance, admins). One row per employee login.';
COMMENT ON COLUMN iam.users.is_agent IS 'True when the user holds a support-desk agent seat and can be assigned tickets.';
COMMENT ON COLUMN iam.users.manager_user_id IS 'Direct manager; used for approval chains and sales roll-ups.';

CREATE TABLE iam.teams (
    team_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_name      varchar(100) NOT NULL UNIQUE,
    department     varchar(50) NOT NULL,
    lead_user_id   bigint REFERENCES iam.users (user_id),
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE iam.teams IS 'Organisational teams (e.g. "EMEA Enterprise Sales", "Tier 2 Support").';
COMMENT ON COLUMN iam.teams.department IS 'Sales, Marketing, Support, Finance, Engineering, Clinical Ops, etc.';

CREATE TABLE iam.team_members (
    team_id        integer NOT NULL REFERENCES iam.teams (team_id),
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    member_role    varchar(32) NOT NULL DEFAULT 'member',
    joined_at      date NOT NULL DEFAULT current_date,
    PRIMARY KEY (team_id, user_id)
);
COMMENT ON TABLE iam.team_members IS 'Bridge: which users belong to which teams. One row per team membership.';

CREATE TABLE iam.roles (
    role_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    role_name      varchar(64) NOT NULL UNIQUE,
    description    text,
    is_system      boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE iam.roles IS 'Access-control roles (RBAC). System roles cannot be deleted.';

CREATE TABLE iam.permissions (
    perm_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    perm_code      varchar(100) NOT NULL UNIQUE,
    resource       varchar(64) NOT NULL,
    action         varchar(32) NOT NULL
);
COMMENT ON TABLE iam.permissions IS 'Atomic permissions, e.g. perm_code = ''billing.invoice.void''.';

CREATE TABLE iam.role_perms (
    role_id        integer NOT NULL REFERENCES iam.roles (role_id),
    perm_id        integer NOT NULL REFERENCES iam.permissions (perm_id),
    PRIMARY KEY (role_id, perm_id)
);
COMMENT ON TABLE iam.role_perms IS 'Bridge: permissions granted to each role.';

CREATE TABLE iam.user_roles (
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    role_id        integer NOT NULL REFERENCES iam.roles (role_id),
    granted_by     bigint REFERENCES iam.users (user_id),
    granted_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, role_id)
);
COMMENT ON TABLE iam.user_roles IS 'Bridge: roles assigned to each user.';

CREATE TABLE iam.api_keys (
    api_key_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_prefix     varchar(12) NOT NULL UNIQUE,
    key_hash       varchar(128) NOT NULL,
    label          varchar(100),
    owner_user_id  bigint NOT NULL REFERENCES iam.users (user_id),
    scopes         text[] NOT NULL DEFAULT '{}',
    expires_at     timestamptz,
    last_used_at   timestamptz,
    revoked_at     timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE iam.api_keys IS 'API keys issued to staff users and service accounts for the public REST API. The secret is stored only as a hash.';
COMMENT ON COLUMN iam.api_keys.key_prefix IS 'First characters of the key shown in the UI so users can identify a key without revealing it.';

CREATE TABLE iam.user_sessions (
    session_id     uuid PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    ip_addr        inet,
    user_agent     text,
    started_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    ended_at       timestamptz
);

CREATE TABLE iam.sso_providers (
    sso_provider_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider_name  varchar(64) NOT NULL,
    protocol       varchar(8) NOT NULL CHECK (protocol IN ('saml', 'oidc')),
    metadata_url   text,
    is_enabled     boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE iam.sso_providers IS 'Single sign-on identity providers configured for staff login.';

CREATE TABLE iam.user_prefs (
    user_id        bigint PRIMARY KEY REFERENCES iam.users (user_id),
    lang_code      varchar(8) REFERENCES ref.languages (lang_code),
    date_format    varchar(16) DEFAULT 'YYYY-MM-DD',
    notif_settings jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- ---------------------------------------------------------------------
-- crm: accounts, contacts, territories
-- ---------------------------------------------------------------------

CREATE TABLE crm.territories (
    territory_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    territory_name varchar(100) NOT NULL,
    parent_territory_id bigint REFERENCES crm.territories (territory_id),
    region         varchar(16) NOT NULL,
    segment        varchar(32),
    owner_user_id  bigint REFERENCES iam.users (user_id),
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE crm.territories IS 'Sales territories, hierarchical (region > area > territory). Accounts are assigned to exactly one active territory.';
COMMENT ON COLUMN crm.territories.segment IS 'Customer segment served: SMB, Mid-Market, Enterprise, Strategic.';

CREATE TABLE crm.territory_rules (
    rule_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    territory_id   bigint NOT NULL REFERENCES crm.territories (territory_id),
    priority       integer NOT NULL DEFAULT 100,
    country_code   char(2) REFERENCES ref.countries (country_code),
    subdivision_code varchar(8) REFERENCES ref.country_subdivisions (subdivision_code),
    min_employees  integer,
    max_employees  integer,
    industry_id    integer REFERENCES ref.industries (industry_id)
);
COMMENT ON TABLE crm.territory_rules IS 'Routing rules used to auto-assign new accounts to territories; lowest priority number wins.';

CREATE TABLE crm.accounts (
    account_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_name   varchar(255) NOT NULL,
    legal_name     varchar(255),
    domain         varchar(255),
    account_type   varchar(32) NOT NULL DEFAULT 'prospect',
    industry_id    integer REFERENCES ref.industries (industry_id),
    employee_cnt   integer,
    annual_rev_usd numeric(16,2),
    hq_country_code char(2) REFERENCES ref.countries (country_code),
    owner_user_id  bigint REFERENCES iam.users (user_id),
    territory_id   bigint REFERENCES crm.territories (territory_id),
    lifecycle_stage varchar(32),
    duns_no        varchar(9),
    is_deleted     boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.accounts IS 'Companies/organisations we sell to or support: prospects, customers, partners and former customers. One row per company.';
COMMENT ON COLUMN crm.accounts.account_type IS 'prospect, customer, partner, reseller, churned.';
COMMENT ON COLUMN crm.accounts.lifecycle_stage IS 'Marketing lifecycle stage: subscriber, lead, MQL, SQL, opportunity, customer, evangelist.';
COMMENT ON COLUMN crm.accounts.duns_no IS 'Dun & Bradstreet D-U-N-S number used for enrichment and deduplication.';
COMMENT ON COLUMN crm.accounts.annual_rev_usd IS 'Customer''s own annual revenue (firmographic, from enrichment) - not revenue we earn from them.';

CREATE TABLE crm.acct_hier (
    parent_account_id bigint NOT NULL REFERENCES crm.accounts (account_id),
    child_account_id  bigint NOT NULL REFERENCES crm.accounts (account_id),
    rel_type          varchar(32) NOT NULL DEFAULT 'subsidiary',
    effective_from    date NOT NULL DEFAULT current_date,
    effective_to      date,
    PRIMARY KEY (parent_account_id, child_account_id)
);
COMMENT ON TABLE crm.acct_hier IS 'Account hierarchy: parent company to subsidiary / division relationships (corporate family tree).';
COMMENT ON COLUMN crm.acct_hier.rel_type IS 'subsidiary, division, franchise, acquired.';

CREATE TABLE crm.account_team_members (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    team_role      varchar(32) NOT NULL,
    PRIMARY KEY (account_id, user_id, team_role)
);
COMMENT ON TABLE crm.account_team_members IS 'Account team: staff covering an account besides the owner (CSM, SE, renewal manager, exec sponsor).';

CREATE TABLE crm.contacts (
    contact_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id     bigint REFERENCES crm.accounts (account_id),
    first_name     varchar(100),
    last_name      varchar(100),
    email          varchar(255),
    job_title      varchar(150),
    seniority      varchar(32),
    department     varchar(64),
    lang_code      varchar(8) REFERENCES ref.languages (lang_code),
    tz_name        varchar(64) REFERENCES ref.timezones (tz_name),
    owner_user_id  bigint REFERENCES iam.users (user_id),
    lifecycle_stage varchar(32),
    is_primary     boolean NOT NULL DEFAULT false,
    do_not_call    boolean NOT NULL DEFAULT false,
    email_opt_out  boolean NOT NULL DEFAULT false,
    linkedin_url   text,
    is_deleted     boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.contacts IS 'People at accounts: buyers, users, billing contacts, champions. One row per person; a contact may exist without an account.';
COMMENT ON COLUMN crm.contacts.is_primary IS 'Primary point of contact for the account (at most one per account by convention).';
COMMENT ON COLUMN crm.contacts.email_opt_out IS 'Global marketing email opt-out; transactional mail is still sent.';

CREATE TABLE crm.addresses (
    address_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    line1          varchar(255) NOT NULL,
    line2          varchar(255),
    city           varchar(100),
    subdivision_code varchar(8) REFERENCES ref.country_subdivisions (subdivision_code),
    postal_code    varchar(20),
    country_code   char(2) NOT NULL REFERENCES ref.countries (country_code),
    latitude       numeric(9,6),
    longitude      numeric(9,6),
    validated_at   timestamptz
);
COMMENT ON TABLE crm.addresses IS 'Postal addresses, shared by accounts and contacts through the link tables.';

CREATE TABLE crm.account_addresses (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    address_id     bigint NOT NULL REFERENCES crm.addresses (address_id),
    address_type   varchar(16) NOT NULL,
    is_default     boolean NOT NULL DEFAULT false,
    PRIMARY KEY (account_id, address_id, address_type)
);
COMMENT ON TABLE crm.account_addresses IS 'Bridge: addresses of an account by type (billing, shipping, hq, office).';

CREATE TABLE crm.contact_addresses (
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    address_id     bigint NOT NULL REFERENCES crm.addresses (address_id),
    address_type   varchar(16) NOT NULL DEFAULT 'mailing',
    PRIMARY KEY (contact_id, address_id)
);

CREATE TABLE crm.phone_numbers (
    phone_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    account_id     bigint REFERENCES crm.accounts (account_id),
    phone_e164     varchar(20) NOT NULL,
    phone_type     varchar(16) NOT NULL DEFAULT 'work',
    extension      varchar(10),
    is_primary     boolean NOT NULL DEFAULT false,
    sms_consent    boolean NOT NULL DEFAULT false,
    CHECK (contact_id IS NOT NULL OR account_id IS NOT NULL)
);
COMMENT ON TABLE crm.phone_numbers IS 'Phone numbers belonging to a contact or an account (switchboard). Stored in E.164 format.';
COMMENT ON COLUMN crm.phone_numbers.sms_consent IS 'Contact has given express consent to receive marketing SMS on this number (TCPA).';

CREATE TABLE crm.contact_consent (
    consent_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    purpose        varchar(64) NOT NULL,
    status         varchar(16) NOT NULL,
    legal_basis    varchar(32),
    source         varchar(64),
    captured_at    timestamptz NOT NULL DEFAULT now(),
    withdrawn_at   timestamptz
);
COMMENT ON TABLE crm.contact_consent IS 'GDPR/CASL consent records: one row per contact per processing purpose each time consent is captured or withdrawn.';
COMMENT ON COLUMN crm.contact_consent.legal_basis IS 'GDPR Art. 6 basis: consent, contract, legitimate_interest, legal_obligation.';

CREATE TABLE crm.contact_lists (
    list_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    list_name      varchar(200) NOT NULL,
    list_type      varchar(16) NOT NULL DEFAULT 'static',
    description    text,
    owner_user_id  bigint REFERENCES iam.users (user_id),
    is_archived    boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.contact_lists IS 'Named, manually curated lists of contacts (e.g. "2024 conference attendees", "Beta customers"). Dynamic rule-based audiences live in marketing.segments.';

CREATE TABLE crm.contact_list_members (
    list_id        bigint NOT NULL REFERENCES crm.contact_lists (list_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    added_at       timestamptz NOT NULL DEFAULT now(),
    added_by       bigint REFERENCES iam.users (user_id),
    removed_at     timestamptz,
    PRIMARY KEY (list_id, contact_id)
);
COMMENT ON TABLE crm.contact_list_members IS 'Bridge: membership of contacts in contact lists. One row per list per contact.';

CREATE TABLE crm.tags (
    tag_id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tag_name       varchar(64) NOT NULL UNIQUE,
    color_hex      char(7),
    created_by     bigint REFERENCES iam.users (user_id)
);
COMMENT ON TABLE crm.tags IS 'Free-form labels that users attach to accounts, contacts and opportunities.';

CREATE TABLE crm.contact_tags (
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    tag_id         integer NOT NULL REFERENCES crm.tags (tag_id),
    tagged_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (contact_id, tag_id)
);

CREATE TABLE crm.account_tags (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    tag_id         integer NOT NULL REFERENCES crm.tags (tag_id),
    tagged_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, tag_id)
);
COMMENT ON TABLE crm.account_tags IS 'Bridge: tags applied to accounts.';

CREATE TABLE crm.notes (
    note_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    parent_type    varchar(32) NOT NULL,
    parent_id      bigint NOT NULL,
    body           text NOT NULL,
    is_pinned      boolean NOT NULL DEFAULT false,
    author_user_id bigint REFERENCES iam.users (user_id),
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.notes IS 'Free-text notes written by staff on any CRM record (polymorphic: parent_type + parent_id).';
COMMENT ON COLUMN crm.notes.parent_type IS 'account, contact, lead, opportunity, quote or contract.';

CREATE TABLE crm.attachments (
    attachment_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    parent_type    varchar(32) NOT NULL,
    parent_id      bigint NOT NULL,
    file_name      varchar(255) NOT NULL,
    mime_type      varchar(100),
    size_bytes     bigint,
    storage_key    text NOT NULL,
    uploaded_by    bigint REFERENCES iam.users (user_id),
    uploaded_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.attachments IS 'Files (signed order forms, RFPs, screenshots) attached to CRM records. Content lives in object storage at storage_key.';

CREATE TABLE crm.custom_field_defs (
    field_def_id   integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    object_type    varchar(32) NOT NULL,
    api_name       varchar(64) NOT NULL,
    label          varchar(100) NOT NULL,
    data_type      varchar(16) NOT NULL,
    picklist_values jsonb,
    is_required    boolean NOT NULL DEFAULT false,
    UNIQUE (object_type, api_name)
);
COMMENT ON TABLE crm.custom_field_defs IS 'Admin-defined custom fields for CRM objects (EAV definitions).';

CREATE TABLE crm.custom_field_vals (
    field_def_id   integer NOT NULL REFERENCES crm.custom_field_defs (field_def_id),
    record_id      bigint NOT NULL,
    val_text       text,
    val_num        numeric(18,4),
    val_date       date,
    val_bool       boolean,
    PRIMARY KEY (field_def_id, record_id)
);
COMMENT ON TABLE crm.custom_field_vals IS 'Values of custom fields, one row per field per record; only the val_* column matching the data type is populated.';

CREATE TABLE crm.merge_log (
    merge_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    object_type    varchar(16) NOT NULL,
    survivor_id    bigint NOT NULL,
    merged_id      bigint NOT NULL,
    merged_by      bigint REFERENCES iam.users (user_id),
    merged_at      timestamptz NOT NULL DEFAULT now(),
    snapshot       jsonb
);
COMMENT ON TABLE crm.merge_log IS 'History of duplicate account/contact/lead merges; snapshot holds the losing record as it was before the merge.';

-- ---------------------------------------------------------------------
-- crm: leads and scoring
-- ---------------------------------------------------------------------

CREATE TABLE crm.lead_sources (
    lead_source_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_name    varchar(64) NOT NULL UNIQUE,
    channel        varchar(32) NOT NULL,
    is_paid        boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE crm.lead_sources IS 'Where leads come from: webinar, paid search, trade show, partner referral, inbound demo request, etc.';

CREATE TABLE crm.leads (
    lead_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    first_name     varchar(100),
    last_name      varchar(100),
    email          varchar(255) NOT NULL,
    company_name   varchar(255),
    job_title      varchar(150),
    phone          varchar(20),
    country_code   char(2) REFERENCES ref.countries (country_code),
    lead_source_id integer REFERENCES crm.lead_sources (lead_source_id),
    status         varchar(32) NOT NULL DEFAULT 'new',
    rating         varchar(8),
    owner_user_id  bigint REFERENCES iam.users (user_id),
    first_campaign_id bigint,
    converted_at   timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.leads IS 'Unqualified prospects (people) not yet converted into a contact/account/opportunity.';
COMMENT ON COLUMN crm.leads.status IS 'new, working, nurturing, qualified, disqualified, converted.';
COMMENT ON COLUMN crm.leads.rating IS 'Sales rep''s gut rating: hot, warm, cold.';
COMMENT ON COLUMN crm.leads.first_campaign_id IS 'First-touch marketing campaign that generated the lead.';

CREATE TABLE crm.lead_conv_log (
    lead_id        bigint PRIMARY KEY REFERENCES crm.leads (lead_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    opportunity_id bigint,
    converted_by   bigint REFERENCES iam.users (user_id),
    converted_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.lead_conv_log IS 'Lead conversion log: which contact, account and (optional) opportunity each converted lead became.';

CREATE TABLE crm.lead_scoring_models (
    model_id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model_name     varchar(100) NOT NULL,
    model_kind     varchar(16) NOT NULL DEFAULT 'rules',
    mql_threshold  integer NOT NULL DEFAULT 100,
    is_active      boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.lead_scoring_models IS 'Lead scoring models (rule-based or predictive). A lead crossing mql_threshold becomes a Marketing Qualified Lead.';

CREATE TABLE crm.lead_scoring_rules (
    rule_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model_id       integer NOT NULL REFERENCES crm.lead_scoring_models (model_id),
    rule_kind      varchar(16) NOT NULL,
    criteria       jsonb NOT NULL,
    points         integer NOT NULL,
    decay_days     integer
);
COMMENT ON TABLE crm.lead_scoring_rules IS 'Individual scoring rules: fit (firmographic) or behavioural criteria and the points awarded.';
COMMENT ON COLUMN crm.lead_scoring_rules.decay_days IS 'Behavioural points expire after this many days; NULL means they never decay.';

CREATE TABLE crm.lead_scores (
    lead_id        bigint NOT NULL REFERENCES crm.leads (lead_id),
    model_id       integer NOT NULL REFERENCES crm.lead_scoring_models (model_id),
    fit_score      integer NOT NULL DEFAULT 0,
    engagement_score integer NOT NULL DEFAULT 0,
    total_score    integer NOT NULL DEFAULT 0,
    mql_at         timestamptz,
    scored_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (lead_id, model_id)
);
COMMENT ON TABLE crm.lead_scores IS 'Current score of each lead under each scoring model. mql_at is when the lead first crossed the MQL threshold.';

-- ---------------------------------------------------------------------
-- crm: products, price books
-- ---------------------------------------------------------------------

CREATE TABLE crm.product_families (
    family_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    family_name    varchar(100) NOT NULL UNIQUE,
    gl_revenue_code varchar(16)
);
COMMENT ON TABLE crm.product_families IS 'Product lines (Core Platform, Add-ons, Professional Services, Health Benefits Admin).';

CREATE TABLE crm.products (
    product_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sku            varchar(64) NOT NULL UNIQUE,
    product_name   varchar(200) NOT NULL,
    family_id      integer REFERENCES crm.product_families (family_id),
    unit_of_measure varchar(32) NOT NULL DEFAULT 'seat',
    is_recurring   boolean NOT NULL DEFAULT true,
    is_active      boolean NOT NULL DEFAULT true,
    description    text
);
COMMENT ON TABLE crm.products IS 'Sellable catalogue items (SKUs): subscriptions, add-ons, one-time services.';
COMMENT ON COLUMN crm.products.unit_of_measure IS 'seat, account, GB, API call block, hour, member.';

CREATE TABLE crm.price_books (
    price_book_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    price_book_name varchar(100) NOT NULL,
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code),
    is_standard    boolean NOT NULL DEFAULT false,
    valid_from     date NOT NULL,
    valid_to       date
);
COMMENT ON TABLE crm.price_books IS 'Price lists by currency / market / channel (e.g. "USD List 2024", "EUR Partner").';

CREATE TABLE crm.price_book_entries (
    price_book_id  integer NOT NULL REFERENCES crm.price_books (price_book_id),
    product_id     bigint NOT NULL REFERENCES crm.products (product_id),
    list_price     numeric(12,2) NOT NULL,
    min_qty        integer NOT NULL DEFAULT 1,
    is_active      boolean NOT NULL DEFAULT true,
    PRIMARY KEY (price_book_id, product_id)
);
COMMENT ON TABLE crm.price_book_entries IS 'List price of a product within a price book. One row per price book per product.';

CREATE TABLE crm.competitors (
    competitor_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    competitor_name varchar(100) NOT NULL UNIQUE,
    website        varchar(255),
    battlecard_url text
);
COMMENT ON TABLE crm.competitors IS 'Known competitors, with links to sales battlecards.';

-- ---------------------------------------------------------------------
-- crm: pipeline and opportunities
-- ---------------------------------------------------------------------

CREATE TABLE crm.pipelines (
    pipeline_id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pipeline_name  varchar(100) NOT NULL,
    deal_kind      varchar(32) NOT NULL,
    is_default     boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE crm.pipelines IS 'Sales pipelines (New Business, Expansion, Renewal, Partner).';

CREATE TABLE crm.stages (
    stage_id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pipeline_id    integer NOT NULL REFERENCES crm.pipelines (pipeline_id),
    stage_name     varchar(64) NOT NULL,
    sort_order     smallint NOT NULL,
    win_probability numeric(5,2) NOT NULL,
    is_closed      boolean NOT NULL DEFAULT false,
    is_won         boolean NOT NULL DEFAULT false,
    UNIQUE (pipeline_id, stage_name)
);
COMMENT ON TABLE crm.stages IS 'Ordered deal stages of each pipeline with default win probability (e.g. Discovery 10%, Proposal 50%, Closed Won 100%).';

CREATE TABLE crm.opportunities (
    opportunity_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    opp_name       varchar(255) NOT NULL,
    pipeline_id    integer NOT NULL REFERENCES crm.pipelines (pipeline_id),
    stage_id       integer NOT NULL REFERENCES crm.stages (stage_id),
    owner_user_id  bigint REFERENCES iam.users (user_id),
    amount         numeric(14,2),
    currency_code  char(3) NOT NULL DEFAULT 'USD' REFERENCES ref.currencies (currency_code),
    arr_amount_usd numeric(14,2),
    probability    numeric(5,2),
    forecast_cat   varchar(16),
    close_date     date,
    lead_source_id integer REFERENCES crm.lead_sources (lead_source_id),
    primary_campaign_id bigint,
    loss_reason    varchar(64),
    next_step      text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    closed_at      timestamptz
);
COMMENT ON TABLE crm.opportunities IS 'Sales deals. One row per opportunity; amount is total contract value in the deal currency.';
COMMENT ON COLUMN crm.opportunities.arr_amount_usd IS 'Annual recurring revenue of the deal converted to USD at the booking-date rate.';
COMMENT ON COLUMN crm.opportunities.forecast_cat IS 'Forecast category: pipeline, best_case, commit, closed, omitted.';
COMMENT ON COLUMN crm.opportunities.primary_campaign_id IS 'Marketing campaign credited with sourcing the deal.';

CREATE TABLE crm.opp_stage_hist (
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    changed_at     timestamptz NOT NULL,
    from_stage_id  integer REFERENCES crm.stages (stage_id),
    to_stage_id    integer NOT NULL REFERENCES crm.stages (stage_id),
    amount_at_change numeric(14,2),
    changed_by     bigint REFERENCES iam.users (user_id),
    PRIMARY KEY (opportunity_id, changed_at)
);
COMMENT ON TABLE crm.opp_stage_hist IS 'Opportunity stage history: one row each time a deal moves between stages. Used for velocity and conversion-rate reporting.';

CREATE TABLE crm.opp_contact_roles (
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    role           varchar(32) NOT NULL,
    is_primary     boolean NOT NULL DEFAULT false,
    PRIMARY KEY (opportunity_id, contact_id)
);
COMMENT ON TABLE crm.opp_contact_roles IS 'Bridge: buying-committee contacts on a deal and their role (decision maker, economic buyer, champion, evaluator, blocker).';

CREATE TABLE crm.opp_line_items (
    opp_line_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    product_id     bigint NOT NULL REFERENCES crm.products (product_id),
    quantity       numeric(12,2) NOT NULL,
    unit_price     numeric(12,2) NOT NULL,
    discount_pct   numeric(5,2) NOT NULL DEFAULT 0,
    term_months    integer
);
COMMENT ON TABLE crm.opp_line_items IS 'Products and quantities being sold on an opportunity.';

CREATE TABLE crm.opp_competitors (
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    competitor_id  integer NOT NULL REFERENCES crm.competitors (competitor_id),
    is_incumbent   boolean NOT NULL DEFAULT false,
    outcome        varchar(16),
    PRIMARY KEY (opportunity_id, competitor_id)
);
COMMENT ON TABLE crm.opp_competitors IS 'Bridge: competitors involved in a deal; outcome records whether we beat them.';

CREATE TABLE crm.opp_tags (
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    tag_id         integer NOT NULL REFERENCES crm.tags (tag_id),
    PRIMARY KEY (opportunity_id, tag_id)
);

CREATE TABLE crm.sales_quotas (
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    fiscal_qtr     char(7) NOT NULL,
    quota_arr_usd  numeric(14,2) NOT NULL,
    quota_type     varchar(16) NOT NULL DEFAULT 'new_arr',
    PRIMARY KEY (user_id, fiscal_qtr, quota_type)
);
COMMENT ON TABLE crm.sales_quotas IS 'Quarterly sales quota per rep. fiscal_qtr is formatted like ''FY25-Q2''.';

CREATE TABLE crm.fcst_submissions (
    submission_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    fiscal_qtr     char(7) NOT NULL,
    commit_usd     numeric(14,2),
    best_case_usd  numeric(14,2),
    submitted_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.fcst_submissions IS 'Weekly sales forecast call submissions by reps and managers (commit and best-case numbers).';

-- ---------------------------------------------------------------------
-- crm: quotes and contracts
-- ---------------------------------------------------------------------

CREATE TABLE crm.quotes (
    quote_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_number   varchar(32) NOT NULL UNIQUE,
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    price_book_id  integer NOT NULL REFERENCES crm.price_books (price_book_id),
    status         varchar(16) NOT NULL DEFAULT 'draft',
    valid_until    date,
    subtotal       numeric(14,2),
    discount_total numeric(14,2),
    grand_total    numeric(14,2),
    approved_by    bigint REFERENCES iam.users (user_id),
    sent_at        timestamptz,
    accepted_at    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE crm.quotes IS 'Price quotes / order forms sent to prospects for an opportunity.';
COMMENT ON COLUMN crm.quotes.status IS 'draft, in_approval, approved, sent, accepted, rejected, expired.';

CREATE TABLE crm.quote_lines (
    quote_line_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    quote_id       bigint NOT NULL REFERENCES crm.quotes (quote_id),
    line_no        smallint NOT NULL,
    price_book_id  integer NOT NULL,
    product_id     bigint NOT NULL,
    quantity       numeric(12,2) NOT NULL,
    list_price     numeric(12,2) NOT NULL,
    discount_pct   numeric(5,2) NOT NULL DEFAULT 0,
    net_price      numeric(12,2) NOT NULL,
    term_months    integer,
    UNIQUE (quote_id, line_no),
    CONSTRAINT fk_quote_lines_pbe FOREIGN KEY (price_book_id, product_id)
        REFERENCES crm.price_book_entries (price_book_id, product_id)
);
COMMENT ON TABLE crm.quote_lines IS 'Line items of a quote. Each line must price a product that exists in the quote''s price book.';
COMMENT ON COLUMN crm.quote_lines.net_price IS 'Extended price after discount: quantity * list_price * (1 - discount_pct/100).';

CREATE TABLE crm.contracts (
    contract_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contract_number varchar(32) NOT NULL UNIQUE,
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    quote_id       bigint REFERENCES crm.quotes (quote_id),
    status         varchar(16) NOT NULL DEFAULT 'draft',
    start_date     date NOT NULL,
    end_date       date NOT NULL,
    auto_renew     boolean NOT NULL DEFAULT true,
    renewal_notice_days integer NOT NULL DEFAULT 30,
    tcv_amount     numeric(14,2),
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code),
    signed_by_contact_id bigint REFERENCES crm.contacts (contact_id),
    signed_at      timestamptz,
    parent_contract_id bigint REFERENCES crm.contracts (contract_id)
);
COMMENT ON TABLE crm.contracts IS 'Signed customer agreements (MSA/order forms). Amendments point to the contract they amend via parent_contract_id.';
COMMENT ON COLUMN crm.contracts.tcv_amount IS 'Total contract value over the full term, in contract currency.';

CREATE TABLE crm.contract_lines (
    contract_line_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contract_id    bigint NOT NULL REFERENCES crm.contracts (contract_id),
    product_id     bigint NOT NULL REFERENCES crm.products (product_id),
    quantity       numeric(12,2) NOT NULL,
    unit_price     numeric(12,2) NOT NULL,
    start_date     date NOT NULL,
    end_date       date NOT NULL
);
COMMENT ON TABLE crm.contract_lines IS 'Entitlements granted by a contract: product, quantity and price for a date range.';

-- ---------------------------------------------------------------------
-- crm: activities
-- ---------------------------------------------------------------------

CREATE TABLE crm.activities (
    activity_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    activity_type  varchar(16) NOT NULL,
    subject        varchar(255),
    account_id     bigint REFERENCES crm.accounts (account_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    lead_id        bigint REFERENCES crm.leads (lead_id),
    opportunity_id bigint REFERENCES crm.opportunities (opportunity_id),
    user_id        bigint REFERENCES iam.users (user_id),
    occurred_at    timestamptz NOT NULL,
    duration_sec   integer,
    outcome        varchar(32)
);
COMMENT ON TABLE crm.activities IS 'Sales activity timeline: logged calls, emails, meetings and tasks against CRM records. One row per touch.';
COMMENT ON COLUMN crm.activities.activity_type IS 'call, email, meeting, task, linkedin, sms.';

CREATE TABLE crm.tasks (
    task_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title          varchar(255) NOT NULL,
    assignee_user_id bigint NOT NULL REFERENCES iam.users (user_id),
    related_type   varchar(32),
    related_id     bigint,
    due_date       date,
    priority       varchar(8) NOT NULL DEFAULT 'normal',
    status         varchar(16) NOT NULL DEFAULT 'open',
    completed_at   timestamptz
);
COMMENT ON TABLE crm.tasks IS 'To-do items for staff (follow-ups, renewals prep), optionally linked to a CRM record.';

CREATE TABLE crm.meetings (
    meeting_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title          varchar(255) NOT NULL,
    organizer_user_id bigint NOT NULL REFERENCES iam.users (user_id),
    account_id     bigint REFERENCES crm.accounts (account_id),
    opportunity_id bigint REFERENCES crm.opportunities (opportunity_id),
    starts_at      timestamptz NOT NULL,
    ends_at        timestamptz NOT NULL,
    location       text,
    video_link     text,
    calendar_event_uid varchar(255)
);
COMMENT ON TABLE crm.meetings IS 'Customer meetings synced from staff calendars.';

CREATE TABLE crm.meeting_attendees (
    meeting_id     bigint NOT NULL REFERENCES crm.meetings (meeting_id),
    attendee_email varchar(255) NOT NULL,
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    user_id        bigint REFERENCES iam.users (user_id),
    rsvp           varchar(12),
    attended       boolean,
    PRIMARY KEY (meeting_id, attendee_email)
);

CREATE TABLE crm.call_logs (
    call_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    activity_id    bigint REFERENCES crm.activities (activity_id),
    direction      varchar(8) NOT NULL,
    from_number    varchar(20),
    to_number      varchar(20),
    started_at     timestamptz NOT NULL,
    talk_time_sec  integer,
    disposition    varchar(32),
    recording_url  text,
    transcript     text
);
COMMENT ON TABLE crm.call_logs IS 'Telephony records from the dialer (inbound/outbound), with recordings and transcripts.';
COMMENT ON COLUMN crm.call_logs.disposition IS 'connected, voicemail, no_answer, wrong_number, gatekeeper, meeting_booked.';

-- ---------------------------------------------------------------------
-- billing: accounts, catalogue, tax, FX
-- ---------------------------------------------------------------------

CREATE TABLE billing.billing_accounts (
    billing_account_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id     bigint NOT NULL,
    billing_name   varchar(255) NOT NULL,
    bill_to_contact_id bigint,
    currency_code  char(3) NOT NULL,
    payment_terms_days integer NOT NULL DEFAULT 30,
    invoice_delivery varchar(16) NOT NULL DEFAULT 'email',
    tax_id_number  varchar(32),
    is_tax_exempt  boolean NOT NULL DEFAULT false,
    tax_exempt_cert_url text,
    dunning_policy_id integer,
    psp_customer_ref varchar(64),
    credit_limit   numeric(14,2),
    created_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (account_id) REFERENCES crm.accounts (account_id),
    FOREIGN KEY (bill_to_contact_id) REFERENCES crm.contacts (contact_id),
    FOREIGN KEY (currency_code) REFERENCES ref.currencies (currency_code)
);
COMMENT ON TABLE billing.billing_accounts IS 'Bill-to entity. A CRM account can have several billing accounts (e.g. per subsidiary or currency). All invoices, payments and subscriptions hang off a billing account.';
COMMENT ON COLUMN billing.billing_accounts.psp_customer_ref IS 'Customer id at the payment service provider (Stripe/Adyen), e.g. cus_123.';
COMMENT ON COLUMN billing.billing_accounts.payment_terms_days IS 'Net payment terms: invoice due date = invoice date + this many days (Net 30 etc.).';

CREATE TABLE billing.exchange_rates (
    rate_date      date NOT NULL,
    from_currency  char(3) NOT NULL,
    to_currency    char(3) NOT NULL,
    rate           numeric(18,8) NOT NULL,
    source         varchar(32) NOT NULL DEFAULT 'ECB',
    PRIMARY KEY (rate_date, from_currency, to_currency),
    FOREIGN KEY (from_currency) REFERENCES ref.currencies (currency_code),
    FOREIGN KEY (to_currency) REFERENCES ref.currencies (currency_code)
);
COMMENT ON TABLE billing.exchange_rates IS 'Daily FX rates: 1 unit of from_currency = rate units of to_currency. Used to report revenue in USD.';

CREATE TABLE billing.tax_jurisdictions (
    jurisdiction_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    country_code   char(2) NOT NULL REFERENCES ref.countries (country_code),
    subdivision_code varchar(8) REFERENCES ref.country_subdivisions (subdivision_code),
    jurisdiction_name varchar(100) NOT NULL,
    tax_authority  varchar(100)
);
COMMENT ON TABLE billing.tax_jurisdictions IS 'Taxing authorities (country, state, county, city) where we collect sales tax / VAT / GST.';

CREATE TABLE billing.tax_rates (
    tax_rate_id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    jurisdiction_id integer NOT NULL REFERENCES billing.tax_jurisdictions (jurisdiction_id),
    tax_type       varchar(16) NOT NULL,
    product_tax_code varchar(16),
    rate_pct       numeric(7,4) NOT NULL,
    effective_from date NOT NULL,
    effective_to   date
);
COMMENT ON TABLE billing.tax_rates IS 'Tax rate percentages by jurisdiction, tax type (VAT, GST, sales_tax) and product tax code, with effective dating.';

CREATE TABLE billing.plans (
    plan_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    plan_code      varchar(32) NOT NULL UNIQUE,
    plan_name      varchar(100) NOT NULL,
    product_id     bigint REFERENCES crm.products (product_id),
    tier           varchar(16) NOT NULL,
    is_public      boolean NOT NULL DEFAULT true,
    trial_days     integer NOT NULL DEFAULT 0,
    retired_at     date
);
COMMENT ON TABLE billing.plans IS 'Subscription plans offered (Starter, Growth, Pro, Enterprise). Prices live in billing.plan_prices.';

CREATE TABLE billing.plan_prices (
    plan_price_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    plan_id        integer NOT NULL REFERENCES billing.plans (plan_id),
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code),
    billing_interval varchar(8) NOT NULL CHECK (billing_interval IN ('month', 'quarter', 'year')),
    pricing_model  varchar(16) NOT NULL DEFAULT 'per_unit',
    unit_amount    numeric(12,2) NOT NULL,
    tiers          jsonb,
    valid_from     date NOT NULL,
    valid_to       date
);
COMMENT ON TABLE billing.plan_prices IS 'Price points of a plan per currency and billing interval. unit_amount is charged per seat/unit per interval.';
COMMENT ON COLUMN billing.plan_prices.pricing_model IS 'flat, per_unit, tiered, volume.';
COMMENT ON COLUMN billing.plan_prices.tiers IS 'Tier table for tiered/volume pricing: [{"up_to": 100, "unit_amount": 9.00}, ...].';

CREATE TABLE billing.features (
    feature_id     integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feature_key    varchar(64) NOT NULL UNIQUE,
    feature_name   varchar(100) NOT NULL,
    limit_unit     varchar(32)
);
COMMENT ON TABLE billing.features IS 'Entitlement features that plans can grant (SSO, API access, custom roles, number of seats...).';

CREATE TABLE billing.plan_features (
    plan_id        integer NOT NULL REFERENCES billing.plans (plan_id),
    feature_id     integer NOT NULL REFERENCES billing.features (feature_id),
    limit_value    integer,
    PRIMARY KEY (plan_id, feature_id)
);
COMMENT ON TABLE billing.plan_features IS 'Bridge: features included in each plan, with optional usage limit.';

CREATE TABLE billing.discounts (
    discount_id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    discount_name  varchar(100) NOT NULL,
    discount_type  varchar(8) NOT NULL CHECK (discount_type IN ('percent', 'amount')),
    percent_off    numeric(5,2),
    amount_off     numeric(12,2),
    currency_code  char(3) REFERENCES ref.currencies (currency_code),
    duration       varchar(12) NOT NULL DEFAULT 'once',
    duration_months integer
);
COMMENT ON TABLE billing.discounts IS 'Discount definitions (percentage or fixed amount) applied to subscriptions or via coupons.';
COMMENT ON COLUMN billing.discounts.duration IS 'once, repeating (for duration_months), forever.';

CREATE TABLE billing.coupons (
    coupon_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coupon_code    varchar(32) NOT NULL UNIQUE,
    discount_id    integer NOT NULL REFERENCES billing.discounts (discount_id),
    max_redemptions integer,
    redeem_by      date,
    campaign_id    bigint,
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE billing.coupons IS 'Promo codes customers can enter at checkout; each maps to a discount and optionally to the marketing campaign that distributed it.';

-- ---------------------------------------------------------------------
-- billing: subscriptions and usage
-- ---------------------------------------------------------------------

CREATE TABLE billing.subscriptions (
    subscription_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    billing_account_id bigint NOT NULL REFERENCES billing.billing_accounts (billing_account_id),
    contract_id    bigint REFERENCES crm.contracts (contract_id),
    status         varchar(16) NOT NULL,
    started_at     date NOT NULL,
    current_period_start date NOT NULL,
    current_period_end date NOT NULL,
    trial_end      date,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    canceled_at    timestamptz,
    cancel_reason  varchar(64),
    ended_at       date,
    discount_id    integer REFERENCES billing.discounts (discount_id),
    collection_method varchar(16) NOT NULL DEFAULT 'charge_automatically',
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE billing.subscriptions IS 'Recurring subscriptions of a billing account. One row per subscription; its priced items are in billing.subscription_items.';
COMMENT ON COLUMN billing.subscriptions.status IS 'trialing, active, past_due, paused, canceled, unpaid.';
COMMENT ON COLUMN billing.subscriptions.collection_method IS 'charge_automatically (card/ACH on file) or send_invoice (customer pays by transfer).';

CREATE TABLE billing.subscription_items (
    sub_item_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id bigint NOT NULL REFERENCES billing.subscriptions (subscription_id),
    plan_price_id  integer NOT NULL REFERENCES billing.plan_prices (plan_price_id),
    quantity       integer NOT NULL DEFAULT 1,
    unit_amount_override numeric(12,2),
    started_at     date NOT NULL,
    ended_at       date
);
COMMENT ON TABLE billing.subscription_items IS 'Priced line of a subscription: a plan price and a seat/unit quantity, effective for a date range.';
COMMENT ON COLUMN billing.subscription_items.unit_amount_override IS 'Negotiated per-unit price that replaces the list unit_amount of the plan price.';

CREATE TABLE billing.sub_change_log (
    change_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id bigint NOT NULL REFERENCES billing.subscriptions (subscription_id),
    change_type    varchar(16) NOT NULL,
    old_mrr        numeric(12,2),
    new_mrr        numeric(12,2),
    effective_date date NOT NULL,
    changed_by     bigint REFERENCES iam.users (user_id),
    reason         text
);
COMMENT ON TABLE billing.sub_change_log IS 'Subscription movements for MRR bridge reporting: new, upgrade, downgrade, seat change, churn, reactivation.';
COMMENT ON COLUMN billing.sub_change_log.old_mrr IS 'Monthly recurring revenue of the subscription immediately before the change, in billing currency.';

CREATE TABLE billing.coupon_redemptions (
    coupon_id      integer NOT NULL REFERENCES billing.coupons (coupon_id),
    subscription_id bigint NOT NULL REFERENCES billing.subscriptions (subscription_id),
    redeemed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (coupon_id, subscription_id)
);
COMMENT ON TABLE billing.coupon_redemptions IS 'Bridge: which subscriptions redeemed which coupon codes.';

CREATE TABLE billing.usage_meters (
    meter_id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    meter_key      varchar(64) NOT NULL UNIQUE,
    display_name   varchar(100) NOT NULL,
    aggregation    varchar(8) NOT NULL DEFAULT 'sum',
    unit_label     varchar(32)
);
COMMENT ON TABLE billing.usage_meters IS 'Metered (usage-based) billing dimensions, e.g. API calls, emails sent, storage GB.';

CREATE TABLE billing.usage_records (
    usage_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sub_item_id    bigint NOT NULL REFERENCES billing.subscription_items (sub_item_id),
    meter_id       integer NOT NULL REFERENCES billing.usage_meters (meter_id),
    quantity       numeric(18,4) NOT NULL,
    usage_ts       timestamptz NOT NULL,
    idempotency_key varchar(64) UNIQUE
);
COMMENT ON TABLE billing.usage_records IS 'Raw usage events reported by the product for metered subscription items.';

CREATE TABLE billing.acct_periods (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    period_month   date NOT NULL CHECK (extract(day FROM period_month) = 1),
    status         varchar(8) NOT NULL DEFAULT 'open',
    closed_at      timestamptz,
    closed_by      bigint REFERENCES iam.users (user_id),
    PRIMARY KEY (account_id, period_month)
);
COMMENT ON TABLE billing.acct_periods IS 'Monthly billing/accounting period per customer account (period_month is the first day of the month). Closing a period locks its usage and invoices.';

CREATE TABLE billing.usage_summary (
    account_id     bigint NOT NULL,
    period_month   date NOT NULL,
    meter_id       integer NOT NULL REFERENCES billing.usage_meters (meter_id),
    total_qty      numeric(18,4) NOT NULL,
    included_qty   numeric(18,4) NOT NULL DEFAULT 0,
    overage_qty    numeric(18,4) NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_month, meter_id),
    CONSTRAINT fk_usage_summary_period FOREIGN KEY (account_id, period_month)
        REFERENCES billing.acct_periods (account_id, period_month)
);
COMMENT ON TABLE billing.usage_summary IS 'Monthly usage totals per account and meter, split into included allowance and billable overage.';

-- ---------------------------------------------------------------------
-- billing: invoices
-- ---------------------------------------------------------------------

CREATE TABLE billing.invoices (
    invoice_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_number varchar(32) NOT NULL UNIQUE,
    billing_account_id bigint NOT NULL REFERENCES billing.billing_accounts (billing_account_id),
    subscription_id bigint REFERENCES billing.subscriptions (subscription_id),
    status         varchar(16) NOT NULL DEFAULT 'draft',
    invoice_date   date NOT NULL,
    due_date       date NOT NULL,
    period_start   date,
    period_end     date,
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code),
    subtotal       numeric(14,2) NOT NULL DEFAULT 0,
    discount_total numeric(14,2) NOT NULL DEFAULT 0,
    tax_total      numeric(14,2) NOT NULL DEFAULT 0,
    total          numeric(14,2) NOT NULL DEFAULT 0,
    amount_paid    numeric(14,2) NOT NULL DEFAULT 0,
    amount_due     numeric(14,2) NOT NULL DEFAULT 0,
    po_number      varchar(64),
    finalized_at   timestamptz,
    paid_at        timestamptz,
    voided_at      timestamptz,
    pdf_url        text
);
COMMENT ON TABLE billing.invoices IS 'Customer invoices (header). One row per invoice issued to a billing account; amounts in invoice currency.';
COMMENT ON COLUMN billing.invoices.status IS 'draft, open, paid, partially_paid, void, uncollectible.';
COMMENT ON COLUMN billing.invoices.amount_due IS 'Outstanding balance: total - amount_paid - credits applied.';
COMMENT ON COLUMN billing.invoices.po_number IS 'Customer purchase-order number to print on the invoice.';

CREATE TABLE billing.invoice_lines (
    invoice_line_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id     bigint NOT NULL REFERENCES billing.invoices (invoice_id),
    line_no        smallint NOT NULL,
    line_type      varchar(16) NOT NULL,
    sub_item_id    bigint REFERENCES billing.subscription_items (sub_item_id),
    product_id     bigint REFERENCES crm.products (product_id),
    description    text,
    period_start   date,
    period_end     date,
    quantity       numeric(18,4) NOT NULL DEFAULT 1,
    unit_amount    numeric(12,4) NOT NULL,
    amount         numeric(14,2) NOT NULL,
    discount_amount numeric(14,2) NOT NULL DEFAULT 0,
    is_proration   boolean NOT NULL DEFAULT false,
    UNIQUE (invoice_id, line_no)
);
COMMENT ON TABLE billing.invoice_lines IS 'Invoice line items: subscription charges, usage overage, one-time fees, prorations.';
COMMENT ON COLUMN billing.invoice_lines.line_type IS 'subscription, usage, one_time, proration, adjustment.';

CREATE TABLE billing.invoice_tax_lines (
    invoice_line_id bigint NOT NULL REFERENCES billing.invoice_lines (invoice_line_id),
    tax_rate_id    integer NOT NULL REFERENCES billing.tax_rates (tax_rate_id),
    taxable_amount numeric(14,2) NOT NULL,
    tax_amount     numeric(14,2) NOT NULL,
    PRIMARY KEY (invoice_line_id, tax_rate_id)
);
COMMENT ON TABLE billing.invoice_tax_lines IS 'Tax calculated on each invoice line, one row per applicable tax rate (a line may carry state + county + city tax).';

-- ---------------------------------------------------------------------
-- billing: payments, refunds, credit notes
-- ---------------------------------------------------------------------

CREATE TABLE billing.payment_methods (
    payment_method_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    billing_account_id bigint NOT NULL REFERENCES billing.billing_accounts (billing_account_id),
    method_type    varchar(16) NOT NULL,
    psp_token      varchar(128) NOT NULL,
    card_brand     varchar(16),
    last4          char(4),
    exp_month      smallint,
    exp_year       smallint,
    is_default     boolean NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    detached_at    timestamptz
);
COMMENT ON TABLE billing.payment_methods IS 'Tokenised payment instruments on file (card, ACH debit, SEPA). No raw card data is stored (PCI scope reduction).';

CREATE TABLE billing.payments (
    payment_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    billing_account_id bigint NOT NULL REFERENCES billing.billing_accounts (billing_account_id),
    payment_method_id bigint REFERENCES billing.payment_methods (payment_method_id),
    amount         numeric(14,2) NOT NULL,
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code),
    status         varchar(16) NOT NULL,
    received_at    timestamptz,
    method         varchar(16) NOT NULL,
    reference      varchar(64),
    fee_amount     numeric(12,2),
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE billing.payments IS 'Money received from customers (card charges, ACH, wire, cheque). Applied to invoices through billing.payment_allocations.';
COMMENT ON COLUMN billing.payments.fee_amount IS 'Processing fee withheld by the payment provider.';

CREATE TABLE billing.payment_allocations (
    payment_id     bigint NOT NULL REFERENCES billing.payments (payment_id),
    invoice_id     bigint NOT NULL REFERENCES billing.invoices (invoice_id),
    amount_applied numeric(14,2) NOT NULL,
    applied_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (payment_id, invoice_id)
);
COMMENT ON TABLE billing.payment_allocations IS 'Bridge: how much of each payment was applied to each invoice (cash application).';

CREATE TABLE billing.pg_txn (
    pg_txn_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id     bigint REFERENCES billing.payments (payment_id),
    gateway        varchar(16) NOT NULL,
    gateway_txn_ref varchar(64) NOT NULL,
    txn_type       varchar(16) NOT NULL,
    amount         numeric(14,2) NOT NULL,
    response_code  varchar(16),
    decline_code   varchar(32),
    raw_response   jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (gateway, gateway_txn_ref)
);
COMMENT ON TABLE billing.pg_txn IS 'Payment gateway transaction log: every authorisation, capture, refund and void call to Stripe/Adyen, including declines.';
COMMENT ON COLUMN billing.pg_txn.decline_code IS 'Issuer decline reason for failed charges, e.g. insufficient_funds, expired_card, do_not_honor.';

CREATE TABLE billing.refunds (
    refund_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id     bigint NOT NULL REFERENCES billing.payments (payment_id),
    amount         numeric(14,2) NOT NULL,
    reason         varchar(32),
    status         varchar(16) NOT NULL,
    requested_by   bigint REFERENCES iam.users (user_id),
    refunded_at    timestamptz
);
COMMENT ON TABLE billing.refunds IS 'Money returned to a customer against a prior payment (full or partial).';

CREATE TABLE billing.credit_notes (
    credit_note_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    credit_note_number varchar(32) NOT NULL UNIQUE,
    invoice_id     bigint NOT NULL REFERENCES billing.invoices (invoice_id),
    reason         varchar(32) NOT NULL,
    total          numeric(14,2) NOT NULL,
    refund_id      bigint REFERENCES billing.refunds (refund_id),
    issued_at      timestamptz NOT NULL DEFAULT now(),
    issued_by      bigint REFERENCES iam.users (user_id)
);
COMMENT ON TABLE billing.credit_notes IS 'Credit memos that reduce the amount owed on an issued invoice (billing error, service credit, goodwill). May be refunded or left as account credit.';

CREATE TABLE billing.credit_note_lines (
    credit_note_id bigint NOT NULL REFERENCES billing.credit_notes (credit_note_id),
    line_no        smallint NOT NULL,
    invoice_line_id bigint REFERENCES billing.invoice_lines (invoice_line_id),
    amount         numeric(14,2) NOT NULL,
    description    text,
    PRIMARY KEY (credit_note_id, line_no)
);

CREATE TABLE billing.chargebacks (
    chargeback_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id     bigint NOT NULL REFERENCES billing.payments (payment_id),
    amount         numeric(14,2) NOT NULL,
    reason_code    varchar(16),
    status         varchar(16) NOT NULL,
    evidence_due_by date,
    opened_at      timestamptz NOT NULL,
    resolved_at    timestamptz
);
COMMENT ON TABLE billing.chargebacks IS 'Card disputes raised by cardholders through their bank, and their resolution (won/lost).';

CREATE TABLE billing.write_offs (
    write_off_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id     bigint NOT NULL REFERENCES billing.invoices (invoice_id),
    amount         numeric(14,2) NOT NULL,
    reason         text,
    approved_by    bigint REFERENCES iam.users (user_id),
    written_off_at date NOT NULL
);
COMMENT ON TABLE billing.write_offs IS 'Bad debt: invoice balances deemed uncollectible and written off.';

-- ---------------------------------------------------------------------
-- billing: collections / dunning
-- ---------------------------------------------------------------------

CREATE TABLE billing.dunning_policies (
    dunning_policy_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    policy_name    varchar(100) NOT NULL,
    max_retries    smallint NOT NULL DEFAULT 4,
    final_action   varchar(16) NOT NULL DEFAULT 'cancel',
    is_default     boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE billing.dunning_policies IS 'Collections playbooks for failed or overdue payments. final_action is applied when all steps are exhausted (cancel, suspend, mark_unpaid).';

CREATE TABLE billing.dunning_steps (
    dunning_policy_id integer NOT NULL REFERENCES billing.dunning_policies (dunning_policy_id),
    step_no        smallint NOT NULL,
    days_after_due integer NOT NULL,
    action         varchar(16) NOT NULL,
    email_template_id bigint,
    PRIMARY KEY (dunning_policy_id, step_no)
);
COMMENT ON TABLE billing.dunning_steps IS 'Ordered steps of a dunning policy: retry the charge, send reminder email, notify CSM, suspend service.';

CREATE TABLE billing.dunning_runs (
    dunning_run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_id     bigint NOT NULL REFERENCES billing.invoices (invoice_id),
    dunning_policy_id integer NOT NULL REFERENCES billing.dunning_policies (dunning_policy_id),
    started_at     timestamptz NOT NULL DEFAULT now(),
    current_step   smallint NOT NULL DEFAULT 1,
    outcome        varchar(16),
    ended_at       timestamptz
);
COMMENT ON TABLE billing.dunning_runs IS 'One collections process per overdue/failed invoice. outcome: recovered, written_off, canceled, in_progress.';

CREATE TABLE billing.dunning_attempts (
    attempt_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    dunning_run_id bigint NOT NULL REFERENCES billing.dunning_runs (dunning_run_id),
    step_no        smallint NOT NULL,
    attempted_at   timestamptz NOT NULL,
    action         varchar(16) NOT NULL,
    pg_txn_id      bigint REFERENCES billing.pg_txn (pg_txn_id),
    succeeded      boolean NOT NULL
);
COMMENT ON TABLE billing.dunning_attempts IS 'Each executed dunning step: payment retry or reminder, and whether it succeeded.';

CREATE TABLE billing.ar_aging_snapshot (
    snapshot_date  date NOT NULL,
    billing_account_id bigint NOT NULL REFERENCES billing.billing_accounts (billing_account_id),
    currency_code  char(3) NOT NULL,
    current_amt    numeric(14,2) NOT NULL DEFAULT 0,
    d1_30_amt      numeric(14,2) NOT NULL DEFAULT 0,
    d31_60_amt     numeric(14,2) NOT NULL DEFAULT 0,
    d61_90_amt     numeric(14,2) NOT NULL DEFAULT 0,
    d90_plus_amt   numeric(14,2) NOT NULL DEFAULT 0,
    total_open_amt numeric(14,2) NOT NULL DEFAULT 0,
    PRIMARY KEY (snapshot_date, billing_account_id)
);
COMMENT ON TABLE billing.ar_aging_snapshot IS 'Nightly accounts-receivable aging snapshot: open invoice balance per billing account bucketed by days past due.';
COMMENT ON COLUMN billing.ar_aging_snapshot.current_amt IS 'Open balance not yet due.';
COMMENT ON COLUMN billing.ar_aging_snapshot.d90_plus_amt IS 'Open balance more than 90 days past due date.';

-- ---------------------------------------------------------------------
-- billing: general ledger & revenue recognition
-- ---------------------------------------------------------------------

CREATE TABLE billing.gl_accounts (
    gl_account_code varchar(16) PRIMARY KEY,
    gl_account_name varchar(100) NOT NULL,
    account_class  varchar(16) NOT NULL,
    parent_code    varchar(16) REFERENCES billing.gl_accounts (gl_account_code),
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE billing.gl_accounts IS 'Chart of accounts (general ledger). account_class: asset, liability, equity, revenue, expense.';

CREATE TABLE billing.journal_entries (
    je_id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    je_date        date NOT NULL,
    source_type    varchar(16) NOT NULL,
    source_id      bigint,
    memo           text,
    posted_at      timestamptz,
    reversed_je_id bigint REFERENCES billing.journal_entries (je_id)
);
COMMENT ON TABLE billing.journal_entries IS 'Journal entry headers generated from billing events (invoice, payment, refund, revenue recognition) for export to the ERP.';

CREATE TABLE billing.je_lines (
    je_id          bigint NOT NULL REFERENCES billing.journal_entries (je_id),
    line_no        smallint NOT NULL,
    gl_account_code varchar(16) NOT NULL REFERENCES billing.gl_accounts (gl_account_code),
    debit          numeric(14,2) NOT NULL DEFAULT 0,
    credit         numeric(14,2) NOT NULL DEFAULT 0,
    currency_code  char(3) NOT NULL,
    PRIMARY KEY (je_id, line_no)
);
COMMENT ON TABLE billing.je_lines IS 'Debit/credit lines of a journal entry.';

CREATE TABLE billing.rev_rec_sched (
    schedule_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    invoice_line_id bigint NOT NULL REFERENCES billing.invoice_lines (invoice_line_id),
    rec_month      date NOT NULL,
    amount         numeric(14,2) NOT NULL,
    recognized     boolean NOT NULL DEFAULT false,
    je_id          bigint REFERENCES billing.journal_entries (je_id),
    UNIQUE (invoice_line_id, rec_month)
);
COMMENT ON TABLE billing.rev_rec_sched IS 'Revenue recognition schedule (ASC 606): how each invoice line''s amount is recognised month by month; the unrecognised remainder is deferred revenue.';

-- ---------------------------------------------------------------------
-- marketing: campaigns and email
-- ---------------------------------------------------------------------

CREATE TABLE marketing.campaigns (
    campaign_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_name  varchar(255) NOT NULL,
    campaign_type  varchar(32) NOT NULL,
    channel        varchar(32) NOT NULL,
    parent_campaign_id bigint REFERENCES marketing.campaigns (campaign_id),
    status         varchar(16) NOT NULL DEFAULT 'planned',
    owner_user_id  bigint REFERENCES iam.users (user_id),
    start_date     date,
    end_date       date,
    budget_amt     numeric(12,2),
    currency_code  char(3) REFERENCES ref.currencies (currency_code),
    expected_revenue numeric(14,2),
    utm_campaign   varchar(100),
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marketing.campaigns IS 'Marketing campaigns and programs (email blasts, webinars, events, paid ads, content syndication). Campaigns can be nested under a parent program.';
COMMENT ON COLUMN marketing.campaigns.campaign_type IS 'email, webinar, event, paid_search, paid_social, content, direct_mail, partner.';

CREATE TABLE marketing.campaign_costs (
    cost_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    cost_date      date NOT NULL,
    vendor         varchar(100),
    cost_category  varchar(32),
    amount         numeric(12,2) NOT NULL,
    currency_code  char(3) NOT NULL REFERENCES ref.currencies (currency_code)
);
COMMENT ON TABLE marketing.campaign_costs IS 'Actual spend booked against a campaign (ad spend, sponsorship fees, agency fees). Used for cost-per-lead and ROI.';

CREATE TABLE marketing.sending_domains (
    domain_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    domain_name    varchar(255) NOT NULL UNIQUE,
    dkim_selector  varchar(64),
    spf_verified   boolean NOT NULL DEFAULT false,
    dkim_verified  boolean NOT NULL DEFAULT false,
    dmarc_policy   varchar(16),
    verified_at    timestamptz
);
COMMENT ON TABLE marketing.sending_domains IS 'Email sending domains with SPF/DKIM/DMARC authentication status (deliverability).';

CREATE TABLE marketing.email_templates (
    template_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    template_name  varchar(200) NOT NULL,
    template_kind  varchar(16) NOT NULL DEFAULT 'marketing',
    lang_code      varchar(8) REFERENCES ref.languages (lang_code),
    subject_tpl    text,
    html_body      text,
    text_body      text,
    version_no     integer NOT NULL DEFAULT 1,
    is_archived    boolean NOT NULL DEFAULT false,
    created_by     bigint REFERENCES iam.users (user_id),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marketing.email_templates IS 'Reusable email templates (HTML + text with merge tags) for marketing, transactional, dunning and support emails.';
COMMENT ON COLUMN marketing.email_templates.template_kind IS 'marketing, transactional, dunning, support_notification.';

CREATE TABLE marketing.email_campaign_messages (
    message_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    message_name   varchar(200) NOT NULL,
    subject_line   varchar(255),
    preheader      varchar(255),
    from_name      varchar(100),
    from_email     varchar(255),
    domain_id      integer REFERENCES marketing.sending_domains (domain_id),
    scheduled_at   timestamptz,
    sent_at        timestamptz,
    status         varchar(16) NOT NULL DEFAULT 'draft'
);
COMMENT ON TABLE marketing.email_campaign_messages IS 'Email campaign messages (ECM): an individual email send within a campaign (e.g. invite, reminder 1, last chance).';

CREATE TABLE marketing.ecm_template_link (
    message_id     bigint NOT NULL REFERENCES marketing.email_campaign_messages (message_id),
    template_id    bigint NOT NULL REFERENCES marketing.email_templates (template_id),
    lang_code      varchar(8) NOT NULL REFERENCES ref.languages (lang_code),
    template_version integer NOT NULL,
    linked_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, template_id, lang_code)
);
COMMENT ON TABLE marketing.ecm_template_link IS 'Links each email campaign message to the template (and pinned template version) used to render it, per recipient language.';

CREATE TABLE marketing.segments (
    segment_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    segment_name   varchar(200) NOT NULL,
    description    text,
    is_dynamic     boolean NOT NULL DEFAULT true,
    refresh_cron   varchar(32),
    member_count   integer,
    last_refreshed_at timestamptz,
    owner_user_id  bigint REFERENCES iam.users (user_id)
);
COMMENT ON TABLE marketing.segments IS 'Audience segments defined by rules over contact/account attributes and behaviour, recomputed on a schedule.';

CREATE TABLE marketing.segment_rules (
    segment_rule_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    segment_id     bigint NOT NULL REFERENCES marketing.segments (segment_id),
    group_no       smallint NOT NULL DEFAULT 1,
    field_path     varchar(128) NOT NULL,
    operator       varchar(16) NOT NULL,
    value          jsonb
);
COMMENT ON TABLE marketing.segment_rules IS 'Filter conditions of a segment. Conditions in the same group_no are ANDed; groups are ORed.';

CREATE TABLE marketing.segment_members (
    segment_id     bigint NOT NULL REFERENCES marketing.segments (segment_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    entered_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (segment_id, contact_id)
);
COMMENT ON TABLE marketing.segment_members IS 'Bridge: contacts currently matching each segment (materialised on refresh).';

CREATE TABLE marketing.campaign_recipients (
    recipient_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    message_id     bigint REFERENCES marketing.email_campaign_messages (message_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    lead_id        bigint REFERENCES crm.leads (lead_id),
    email          varchar(255) NOT NULL,
    source_list_id bigint REFERENCES crm.contact_lists (list_id),
    source_segment_id bigint REFERENCES marketing.segments (segment_id),
    member_status  varchar(16) NOT NULL DEFAULT 'targeted',
    sent_at        timestamptz,
    responded_at   timestamptz
);
COMMENT ON TABLE marketing.campaign_recipients IS 'Campaign audience: one row per person (contact or lead) targeted by a campaign message, with how they were selected (list or segment).';
COMMENT ON COLUMN marketing.campaign_recipients.member_status IS 'targeted, sent, registered, attended, responded, excluded.';

CREATE TABLE marketing.email_events (
    event_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recipient_id   bigint NOT NULL REFERENCES marketing.campaign_recipients (recipient_id),
    event_type     varchar(16) NOT NULL,
    event_ts       timestamptz NOT NULL,
    clicked_url    text,
    bounce_type    varchar(8),
    bounce_reason  text,
    user_agent     text,
    ip_addr        inet,
    is_machine_open boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE marketing.email_events IS 'Email engagement events from the ESP webhook: delivered, open, click, bounce, spam complaint, unsubscribe. One row per event.';
COMMENT ON COLUMN marketing.email_events.bounce_type IS 'hard (permanent, address invalid) or soft (temporary, mailbox full).';
COMMENT ON COLUMN marketing.email_events.is_machine_open IS 'Open triggered by a privacy proxy (e.g. Apple Mail Privacy Protection), excluded from open-rate metrics.';

CREATE TABLE marketing.unsubscribes (
    unsub_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email          varchar(255) NOT NULL,
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    subscription_topic varchar(64),
    campaign_id    bigint REFERENCES marketing.campaigns (campaign_id),
    reason         varchar(64),
    unsubscribed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marketing.unsubscribes IS 'Opt-outs from marketing email, globally or for one subscription topic (newsletter, product updates, events).';

CREATE TABLE marketing.suppression_list (
    email          varchar(255) PRIMARY KEY,
    reason         varchar(16) NOT NULL,
    added_at       timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz
);
COMMENT ON TABLE marketing.suppression_list IS 'Addresses that must never be emailed: hard bounces, spam complaints, legal requests, competitors.';

CREATE TABLE marketing.sms_messages (
    sms_id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint REFERENCES marketing.campaigns (campaign_id),
    phone_id       bigint REFERENCES crm.phone_numbers (phone_id),
    body           varchar(1600) NOT NULL,
    status         varchar(16) NOT NULL,
    provider_msg_id varchar(64),
    sent_at        timestamptz,
    delivered_at   timestamptz
);
COMMENT ON TABLE marketing.sms_messages IS 'Outbound marketing text messages and their delivery status.';

-- ---------------------------------------------------------------------
-- marketing: journeys and experiments
-- ---------------------------------------------------------------------

CREATE TABLE marketing.journeys (
    journey_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journey_name   varchar(200) NOT NULL,
    entry_segment_id bigint REFERENCES marketing.segments (segment_id),
    status         varchar(16) NOT NULL DEFAULT 'draft',
    allow_reentry  boolean NOT NULL DEFAULT false,
    published_at   timestamptz
);
COMMENT ON TABLE marketing.journeys IS 'Automated nurture journeys (drip programs): multi-step flows that contacts enter from a segment.';

CREATE TABLE marketing.journey_steps (
    step_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journey_id     bigint NOT NULL REFERENCES marketing.journeys (journey_id),
    step_no        smallint NOT NULL,
    step_type      varchar(16) NOT NULL,
    message_id     bigint REFERENCES marketing.email_campaign_messages (message_id),
    wait_hours     integer,
    branch_rule    jsonb,
    UNIQUE (journey_id, step_no)
);
COMMENT ON TABLE marketing.journey_steps IS 'Steps of a journey: send email, wait, branch on condition, update field, notify owner.';

CREATE TABLE marketing.journey_enrollments (
    enrollment_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journey_id     bigint NOT NULL REFERENCES marketing.journeys (journey_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    current_step_id bigint REFERENCES marketing.journey_steps (step_id),
    enrolled_at    timestamptz NOT NULL DEFAULT now(),
    exited_at      timestamptz,
    exit_reason    varchar(32)
);
COMMENT ON TABLE marketing.journey_enrollments IS 'Contacts enrolled in a journey and where they are in it.';

CREATE TABLE marketing.ab_tests (
    ab_test_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id     bigint NOT NULL REFERENCES marketing.email_campaign_messages (message_id),
    test_variable  varchar(32) NOT NULL,
    win_metric     varchar(16) NOT NULL DEFAULT 'open_rate',
    sample_pct     smallint NOT NULL DEFAULT 20,
    winner_variant_id bigint,
    decided_at     timestamptz
);
COMMENT ON TABLE marketing.ab_tests IS 'A/B (split) tests on email messages: subject line, sender, content or send time.';

CREATE TABLE marketing.ab_variants (
    variant_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ab_test_id     bigint NOT NULL REFERENCES marketing.ab_tests (ab_test_id),
    variant_label  char(1) NOT NULL,
    subject_line   varchar(255),
    template_id    bigint REFERENCES marketing.email_templates (template_id),
    recipients     integer,
    opens          integer,
    clicks         integer
);

-- ---------------------------------------------------------------------
-- marketing: web, forms, content, attribution
-- ---------------------------------------------------------------------

CREATE TABLE marketing.landing_pages (
    page_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint REFERENCES marketing.campaigns (campaign_id),
    url_path       varchar(255) NOT NULL UNIQUE,
    title          varchar(255),
    published_at   timestamptz,
    unpublished_at timestamptz
);
COMMENT ON TABLE marketing.landing_pages IS 'Campaign landing pages hosted on the marketing site.';

CREATE TABLE marketing.forms (
    form_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    form_name      varchar(200) NOT NULL,
    page_id        bigint REFERENCES marketing.landing_pages (page_id),
    campaign_id    bigint REFERENCES marketing.campaigns (campaign_id),
    lead_source_id integer REFERENCES crm.lead_sources (lead_source_id),
    thank_you_url  text,
    is_gated_content boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE marketing.forms IS 'Web forms (demo request, contact us, gated download, webinar registration) that create or update leads.';

CREATE TABLE marketing.form_fields (
    form_id        bigint NOT NULL REFERENCES marketing.forms (form_id),
    field_name     varchar(64) NOT NULL,
    label          varchar(100),
    field_type     varchar(16) NOT NULL,
    is_required    boolean NOT NULL DEFAULT false,
    sort_order     smallint NOT NULL,
    PRIMARY KEY (form_id, field_name)
);

CREATE TABLE marketing.form_submissions (
    submission_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    form_id        bigint NOT NULL REFERENCES marketing.forms (form_id),
    lead_id        bigint REFERENCES crm.leads (lead_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    payload        jsonb NOT NULL,
    page_url       text,
    referrer       text,
    utm_source     varchar(100),
    utm_medium     varchar(100),
    utm_campaign   varchar(100),
    submitted_at   timestamptz NOT NULL DEFAULT now(),
    is_spam        boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE marketing.form_submissions IS 'Every web form fill, with the raw submitted values and UTM parameters.';

CREATE TABLE marketing.utm_links (
    utm_link_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    destination_url text NOT NULL,
    utm_source     varchar(100) NOT NULL,
    utm_medium     varchar(100) NOT NULL,
    utm_content    varchar(100),
    short_code     varchar(16) UNIQUE,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE marketing.utm_links IS 'Tracked links built for campaigns (UTM-tagged URLs and short links).';

CREATE TABLE marketing.web_sessions (
    web_session_id uuid PRIMARY KEY,
    visitor_id     uuid NOT NULL,
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    started_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    landing_url    text,
    referrer       text,
    utm_source     varchar(100),
    utm_medium     varchar(100),
    utm_campaign   varchar(100),
    country_code   char(2),
    device_type    varchar(16)
);
COMMENT ON TABLE marketing.web_sessions IS 'Website visits captured by the tracking pixel; contact_id is filled once the anonymous visitor is identified.';

CREATE TABLE marketing.page_views (
    web_session_id uuid NOT NULL REFERENCES marketing.web_sessions (web_session_id),
    seq_no         integer NOT NULL,
    url            text NOT NULL,
    viewed_at      timestamptz NOT NULL,
    time_on_page_sec integer,
    PRIMARY KEY (web_session_id, seq_no)
);

CREATE TABLE marketing.content_assets (
    asset_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title          varchar(255) NOT NULL,
    asset_type     varchar(32) NOT NULL,
    topic          varchar(64),
    file_url       text,
    form_id        bigint REFERENCES marketing.forms (form_id),
    published_at   date
);
COMMENT ON TABLE marketing.content_assets IS 'Marketing content library: ebooks, whitepapers, case studies, webinar recordings. Gated assets require a form fill.';

CREATE TABLE marketing.asset_downloads (
    download_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    asset_id       bigint NOT NULL REFERENCES marketing.content_assets (asset_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    lead_id        bigint REFERENCES crm.leads (lead_id),
    downloaded_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE marketing.attribution_touches (
    touch_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    opportunity_id bigint NOT NULL REFERENCES crm.opportunities (opportunity_id),
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    touched_at     timestamptz NOT NULL,
    model          varchar(16) NOT NULL,
    credit_pct     numeric(6,3) NOT NULL
);
COMMENT ON TABLE marketing.attribution_touches IS 'Multi-touch revenue attribution: share of each opportunity credited to each campaign touch under a given model.';
COMMENT ON COLUMN marketing.attribution_touches.model IS 'first_touch, last_touch, linear, u_shaped, w_shaped, time_decay.';
COMMENT ON COLUMN marketing.attribution_touches.credit_pct IS 'Fraction of the opportunity amount credited to this touch; sums to 100 per opportunity and model.';

CREATE TABLE marketing.webinar_regs (
    campaign_id    bigint NOT NULL REFERENCES marketing.campaigns (campaign_id),
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    registered_at  timestamptz NOT NULL DEFAULT now(),
    attended       boolean,
    minutes_watched integer,
    watched_replay boolean NOT NULL DEFAULT false,
    PRIMARY KEY (campaign_id, contact_id)
);
COMMENT ON TABLE marketing.webinar_regs IS 'Webinar registrations and attendance (live minutes watched, replay views).';

-- ---------------------------------------------------------------------
-- support: service desk
-- ---------------------------------------------------------------------

CREATE TABLE support.business_hours (
    schedule_id    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule_name  varchar(100) NOT NULL,
    tz_name        varchar(64) NOT NULL REFERENCES ref.timezones (tz_name),
    weekly_hours   jsonb NOT NULL
);
COMMENT ON TABLE support.business_hours IS 'Support working-hours calendars used to compute SLA clocks (e.g. "US 8x5", "Global 24x7").';
COMMENT ON COLUMN support.business_hours.weekly_hours IS 'Open intervals per weekday, e.g. {"mon": [["08:00","18:00"]], ...}.';

CREATE TABLE support.holidays (
    schedule_id    integer NOT NULL REFERENCES support.business_hours (schedule_id),
    holiday_date   date NOT NULL,
    holiday_name   varchar(100),
    PRIMARY KEY (schedule_id, holiday_date)
);

CREATE TABLE support.sla_policies (
    sla_policy_id  integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    policy_name    varchar(100) NOT NULL,
    schedule_id    integer NOT NULL REFERENCES support.business_hours (schedule_id),
    applies_to_plan_tier varchar(16),
    sort_order     smallint NOT NULL DEFAULT 100,
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE support.sla_policies IS 'Service level agreement policies (e.g. Enterprise Premium, Standard). The first matching active policy by sort_order applies to a ticket.';

CREATE TABLE support.sla_targets (
    sla_policy_id  integer NOT NULL REFERENCES support.sla_policies (sla_policy_id),
    priority       varchar(8) NOT NULL,
    metric         varchar(24) NOT NULL,
    target_minutes integer NOT NULL,
    business_hours_only boolean NOT NULL DEFAULT true,
    PRIMARY KEY (sla_policy_id, priority, metric)
);
COMMENT ON TABLE support.sla_targets IS 'Response/resolution time targets of an SLA policy by ticket priority.';
COMMENT ON COLUMN support.sla_targets.metric IS 'first_response, next_response, resolution.';

CREATE TABLE support.queues (
    queue_id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue_name     varchar(100) NOT NULL UNIQUE,
    team_id        integer REFERENCES iam.teams (team_id),
    inbound_email  varchar(255),
    default_sla_policy_id integer REFERENCES support.sla_policies (sla_policy_id)
);
COMMENT ON TABLE support.queues IS 'Ticket queues / groups that route work to support teams (Billing Support, Tier 1, Tier 2, Health Member Services).';

CREATE TABLE support.tickets (
    ticket_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ticket_number  varchar(16) NOT NULL UNIQUE,
    subject        varchar(255) NOT NULL,
    description    text,
    account_id     bigint REFERENCES crm.accounts (account_id),
    requester_contact_id bigint REFERENCES crm.contacts (contact_id),
    queue_id       integer REFERENCES support.queues (queue_id),
    assignee_user_id bigint REFERENCES iam.users (user_id),
    channel        varchar(16) NOT NULL,
    priority       varchar(8) NOT NULL DEFAULT 'normal',
    status         varchar(16) NOT NULL DEFAULT 'new',
    category       varchar(64),
    sla_policy_id  integer REFERENCES support.sla_policies (sla_policy_id),
    first_response_at timestamptz,
    solved_at      timestamptz,
    closed_at      timestamptz,
    reopen_count   smallint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE support.tickets IS 'Customer support cases. One row per ticket, from creation to close.';
COMMENT ON COLUMN support.tickets.status IS 'new, open, pending (waiting on customer), on_hold (waiting on internal team), solved, closed.';
COMMENT ON COLUMN support.tickets.channel IS 'email, web, chat, phone, api, social.';
COMMENT ON COLUMN support.tickets.priority IS 'low, normal, high, urgent.';

CREATE TABLE support.ticket_comments (
    comment_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    author_user_id bigint REFERENCES iam.users (user_id),
    author_contact_id bigint REFERENCES crm.contacts (contact_id),
    body           text NOT NULL,
    is_public      boolean NOT NULL DEFAULT true,
    via_channel    varchar(16),
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE support.ticket_comments IS 'Conversation thread of a ticket: customer replies, agent replies and internal notes (is_public = false).';

CREATE TABLE support.ticket_attachments (
    attachment_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    comment_id     bigint NOT NULL REFERENCES support.ticket_comments (comment_id),
    file_name      varchar(255) NOT NULL,
    mime_type      varchar(100),
    size_bytes     bigint,
    storage_key    text NOT NULL
);

CREATE TABLE support.ticket_status_hist (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    changed_at     timestamptz NOT NULL,
    old_status     varchar(16),
    new_status     varchar(16) NOT NULL,
    changed_by     bigint REFERENCES iam.users (user_id),
    PRIMARY KEY (ticket_id, changed_at)
);
COMMENT ON TABLE support.ticket_status_hist IS 'Audit trail of ticket status transitions, used to measure time spent in each status.';

CREATE TABLE support.ticket_sla_events (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    metric         varchar(24) NOT NULL,
    target_at      timestamptz NOT NULL,
    achieved_at    timestamptz,
    is_breached    boolean NOT NULL DEFAULT false,
    paused_minutes integer NOT NULL DEFAULT 0,
    PRIMARY KEY (ticket_id, metric)
);
COMMENT ON TABLE support.ticket_sla_events IS 'SLA clock per ticket and metric: when the target was due, when it was met, and whether it was breached.';

CREATE TABLE support.tags (
    tag_id         integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tag_name       varchar(64) NOT NULL UNIQUE
);

CREATE TABLE support.ticket_tags (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    tag_id         integer NOT NULL REFERENCES support.tags (tag_id),
    PRIMARY KEY (ticket_id, tag_id)
);
COMMENT ON TABLE support.ticket_tags IS 'Bridge: tags applied to support tickets (separate vocabulary from CRM tags).';

CREATE TABLE support.ticket_watchers (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    PRIMARY KEY (ticket_id, user_id)
);
COMMENT ON TABLE support.ticket_watchers IS 'Staff CC''d on a ticket who receive update notifications.';

CREATE TABLE support.ticket_links (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    linked_ticket_id bigint NOT NULL REFERENCES support.tickets (ticket_id),
    link_type      varchar(16) NOT NULL,
    PRIMARY KEY (ticket_id, linked_ticket_id)
);
COMMENT ON TABLE support.ticket_links IS 'Relationships between tickets: duplicate_of, problem/incident, related.';

CREATE TABLE support.escalations (
    escalation_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    esc_level      smallint NOT NULL,
    esc_reason     varchar(64) NOT NULL,
    escalated_to_user_id bigint REFERENCES iam.users (user_id),
    escalated_to_team_id integer REFERENCES iam.teams (team_id),
    jira_issue_key varchar(32),
    escalated_at   timestamptz NOT NULL DEFAULT now(),
    resolved_at    timestamptz
);
COMMENT ON TABLE support.escalations IS 'Ticket escalations to higher support tiers, engineering (with Jira issue key) or management.';

CREATE TABLE support.macros (
    macro_id       integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    macro_name     varchar(100) NOT NULL,
    reply_body     text,
    owner_user_id  bigint REFERENCES iam.users (user_id),
    is_shared      boolean NOT NULL DEFAULT true,
    usage_count    integer NOT NULL DEFAULT 0
);
COMMENT ON TABLE support.macros IS 'Canned responses / macros agents apply to tickets: a reply text plus field updates.';

CREATE TABLE support.macro_actions (
    macro_id       integer NOT NULL REFERENCES support.macros (macro_id),
    seq_no         smallint NOT NULL,
    field_name     varchar(64) NOT NULL,
    new_value      text,
    PRIMARY KEY (macro_id, seq_no)
);

CREATE TABLE support.agent_shifts (
    shift_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    queue_id       integer REFERENCES support.queues (queue_id),
    shift_start    timestamptz NOT NULL,
    shift_end      timestamptz NOT NULL,
    is_on_call     boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE support.agent_shifts IS 'Agent rota: scheduled working shifts and on-call duty per queue.';

-- ---------------------------------------------------------------------
-- support: knowledge base
-- ---------------------------------------------------------------------

CREATE TABLE support.kb_categories (
    kb_category_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    category_name  varchar(100) NOT NULL,
    parent_category_id integer REFERENCES support.kb_categories (kb_category_id),
    sort_order     smallint NOT NULL DEFAULT 0
);
COMMENT ON TABLE support.kb_categories IS 'Help-center sections and categories (hierarchical).';

CREATE TABLE support.kb_articles (
    article_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kb_category_id integer NOT NULL REFERENCES support.kb_categories (kb_category_id),
    slug           varchar(200) NOT NULL UNIQUE,
    visibility     varchar(16) NOT NULL DEFAULT 'public',
    author_user_id bigint REFERENCES iam.users (user_id),
    current_ver_no integer,
    view_count     bigint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    archived_at    timestamptz
);
COMMENT ON TABLE support.kb_articles IS 'Knowledge-base (help center) articles. Title and body are versioned in support.kb_art_ver.';
COMMENT ON COLUMN support.kb_articles.visibility IS 'public, customers_only (logged-in), internal (agents only).';

CREATE TABLE support.kb_art_ver (
    article_id     bigint NOT NULL REFERENCES support.kb_articles (article_id),
    ver_no         integer NOT NULL,
    lang_code      varchar(8) NOT NULL REFERENCES ref.languages (lang_code),
    title          varchar(255) NOT NULL,
    body_md        text NOT NULL,
    status         varchar(16) NOT NULL DEFAULT 'draft',
    edited_by      bigint REFERENCES iam.users (user_id),
    published_at   timestamptz,
    PRIMARY KEY (article_id, ver_no, lang_code)
);
COMMENT ON TABLE support.kb_art_ver IS 'Knowledge-base article versions and translations: full title/body of each revision per language.';

CREATE TABLE support.kb_art_feedback (
    feedback_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    article_id     bigint NOT NULL REFERENCES support.kb_articles (article_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    was_helpful    boolean NOT NULL,
    comment        text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE support.kb_art_feedback IS '"Was this article helpful?" votes from help-center readers.';

CREATE TABLE support.ticket_kb_links (
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    article_id     bigint NOT NULL REFERENCES support.kb_articles (article_id),
    linked_by      bigint REFERENCES iam.users (user_id),
    deflected      boolean NOT NULL DEFAULT false,
    PRIMARY KEY (ticket_id, article_id)
);
COMMENT ON TABLE support.ticket_kb_links IS 'Bridge: KB articles an agent linked/sent on a ticket. deflected = customer self-served and the ticket was closed without agent work.';

-- ---------------------------------------------------------------------
-- support: customer satisfaction
-- ---------------------------------------------------------------------

CREATE TABLE support.csat_surveys (
    survey_id      integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    survey_name    varchar(100) NOT NULL,
    survey_kind    varchar(8) NOT NULL DEFAULT 'csat',
    question_text  text NOT NULL,
    scale_max      smallint NOT NULL DEFAULT 5,
    send_delay_hours integer NOT NULL DEFAULT 24,
    is_active      boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE support.csat_surveys IS 'Satisfaction survey definitions sent after ticket resolution (CSAT 1-5, CES) .';

CREATE TABLE support.csat_responses (
    response_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    survey_id      integer NOT NULL REFERENCES support.csat_surveys (survey_id),
    ticket_id      bigint NOT NULL REFERENCES support.tickets (ticket_id),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    agent_user_id  bigint REFERENCES iam.users (user_id),
    score          smallint NOT NULL,
    comment        text,
    sent_at        timestamptz NOT NULL,
    responded_at   timestamptz
);
COMMENT ON TABLE support.csat_responses IS 'Customer satisfaction ratings on solved tickets, attributed to the agent who solved the ticket.';
COMMENT ON COLUMN support.csat_responses.score IS 'Rating on the survey scale; 4-5 counts as satisfied for CSAT %.';

CREATE TABLE support.nps_responses (
    nps_response_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contact_id     bigint NOT NULL REFERENCES crm.contacts (contact_id),
    account_id     bigint REFERENCES crm.accounts (account_id),
    score          smallint NOT NULL CHECK (score BETWEEN 0 AND 10),
    verbatim       text,
    survey_wave    varchar(16),
    responded_at   timestamptz NOT NULL
);
COMMENT ON TABLE support.nps_responses IS 'Relationship Net Promoter Score survey answers (0-10; 9-10 promoters, 0-6 detractors).';

-- ---------------------------------------------------------------------
-- health: health-plan membership (Northwind Health Benefits)
-- ---------------------------------------------------------------------

CREATE TABLE health.employer_groups (
    group_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    group_number   varchar(16) NOT NULL UNIQUE,
    group_name     varchar(255) NOT NULL,
    account_id     bigint REFERENCES crm.accounts (account_id),
    sic_code       varchar(4),
    renewal_month  smallint,
    eligible_employees integer,
    effective_date date NOT NULL,
    term_date      date
);
COMMENT ON TABLE health.employer_groups IS 'Employer groups that sponsor health coverage for their employees. Linked to the CRM account of the employer.';
COMMENT ON COLUMN health.employer_groups.renewal_month IS 'Month (1-12) in which the group''s benefits renew and open enrollment happens.';

CREATE TABLE health.benefit_plans (
    plan_id        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    plan_code      varchar(16) NOT NULL UNIQUE,
    plan_name      varchar(100) NOT NULL,
    product_type   varchar(8) NOT NULL,
    metal_tier     varchar(12),
    plan_year      smallint NOT NULL,
    deductible_ind numeric(10,2),
    deductible_fam numeric(10,2),
    oop_max_ind    numeric(10,2),
    oop_max_fam    numeric(10,2),
    network_id     integer
);
COMMENT ON TABLE health.benefit_plans IS 'Health benefit plans offered (medical/dental/vision), one row per plan per plan year, with cost-sharing parameters.';
COMMENT ON COLUMN health.benefit_plans.product_type IS 'HMO, PPO, EPO, POS, HDHP, DENTAL, VISION.';
COMMENT ON COLUMN health.benefit_plans.metal_tier IS 'ACA metal level: bronze, silver, gold, platinum (NULL for grandfathered/ancillary plans).';
COMMENT ON COLUMN health.benefit_plans.oop_max_ind IS 'Individual out-of-pocket maximum for the plan year.';

CREATE TABLE health.members (
    member_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_number  varchar(20) NOT NULL UNIQUE,
    subscriber_member_id bigint REFERENCES health.members (member_id),
    relationship_code varchar(2) NOT NULL DEFAULT '18',
    group_id       bigint REFERENCES health.employer_groups (group_id),
    first_name     varchar(100) NOT NULL,
    last_name      varchar(100) NOT NULL,
    birth_date     date NOT NULL,
    gender         char(1),
    ssn_last4      char(4),
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    address_id     bigint REFERENCES crm.addresses (address_id),
    lang_code      varchar(8) REFERENCES ref.languages (lang_code),
    deceased_date  date,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE health.members IS 'Covered persons (subscribers and their dependents). One row per person; enrollment periods are in health.eligibility_spans. Contains PHI.';
COMMENT ON COLUMN health.members.subscriber_member_id IS 'The employee/policy holder this member is covered under; equals member_id for the subscriber.';
COMMENT ON COLUMN health.members.relationship_code IS 'X12 834 individual relationship code: 18 = self, 01 = spouse, 19 = child.';

CREATE TABLE health.provider_networks (
    network_id     integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    network_name   varchar(100) NOT NULL,
    network_type   varchar(16) NOT NULL
);
COMMENT ON TABLE health.provider_networks IS 'Provider networks (narrow, broad, tiered) that plans contract with.';

CREATE TABLE health.providers (
    provider_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    npi            char(10) NOT NULL UNIQUE,
    provider_name  varchar(255) NOT NULL,
    provider_type  varchar(16) NOT NULL,
    specialty_code varchar(16),
    tax_id         varchar(10),
    address_id     bigint REFERENCES crm.addresses (address_id),
    accepting_new  boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE health.providers IS 'Doctors, facilities and pharmacies that bill claims, identified by National Provider Identifier (NPI).';
COMMENT ON COLUMN health.providers.provider_type IS 'individual (NPI type 1) or organization (NPI type 2): hospital, clinic, lab, pharmacy.';

CREATE TABLE health.network_providers (
    network_id     integer NOT NULL REFERENCES health.provider_networks (network_id),
    provider_id    bigint NOT NULL REFERENCES health.providers (provider_id),
    tier           smallint NOT NULL DEFAULT 1,
    effective_date date NOT NULL,
    term_date      date,
    PRIMARY KEY (network_id, provider_id, effective_date)
);
COMMENT ON TABLE health.network_providers IS 'Bridge: provider participation (in-network status) in each network over time.';

CREATE TABLE health.eligibility_spans (
    span_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    group_id       bigint REFERENCES health.employer_groups (group_id),
    coverage_tier  varchar(8) NOT NULL,
    start_date     date NOT NULL,
    end_date       date,
    term_reason    varchar(32),
    source_file_id bigint,
    CHECK (end_date IS NULL OR end_date >= start_date)
);
COMMENT ON TABLE health.eligibility_spans IS 'Coverage periods: a member is eligible for benefits under a plan from start_date to end_date (NULL = open-ended). Loaded from 834 enrollment files.';
COMMENT ON COLUMN health.eligibility_spans.coverage_tier IS 'EE (employee only), ES (employee + spouse), EC (employee + children), FAM (family).';

CREATE TABLE health.member_months (
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    coverage_month date NOT NULL,
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    group_id       bigint REFERENCES health.employer_groups (group_id),
    span_id        bigint REFERENCES health.eligibility_spans (span_id),
    PRIMARY KEY (member_id, coverage_month)
);
COMMENT ON TABLE health.member_months IS 'One row per member per month of coverage (derived from eligibility spans). Count of rows = member months, the denominator for PMPM metrics.';
COMMENT ON COLUMN health.member_months.coverage_month IS 'First day of the covered calendar month.';

CREATE TABLE health.member_risk_scores (
    member_id      bigint NOT NULL,
    coverage_month date NOT NULL,
    risk_model     varchar(16) NOT NULL,
    risk_score     numeric(8,4) NOT NULL,
    hcc_codes      text[],
    PRIMARY KEY (member_id, coverage_month, risk_model),
    FOREIGN KEY (member_id, coverage_month) REFERENCES health.member_months (member_id, coverage_month)
);
COMMENT ON TABLE health.member_risk_scores IS 'Monthly risk adjustment score per member (e.g. CMS-HCC, HHS-HCC), with the hierarchical condition categories that drove it.';

CREATE TABLE health.pcp_assignments (
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    provider_id    bigint NOT NULL REFERENCES health.providers (provider_id),
    start_date     date NOT NULL,
    end_date       date,
    PRIMARY KEY (member_id, start_date)
);
COMMENT ON TABLE health.pcp_assignments IS 'Primary care physician chosen by or assigned to each member (required for HMO plans).';

CREATE TABLE health.icd10_codes (
    icd10_code     varchar(8) PRIMARY KEY,
    short_desc     varchar(100) NOT NULL,
    long_desc      text,
    is_billable    boolean NOT NULL DEFAULT true
);
COMMENT ON TABLE health.icd10_codes IS 'ICD-10-CM diagnosis code dictionary.';

CREATE TABLE health.cpt_codes (
    cpt_code       varchar(5) PRIMARY KEY,
    short_desc     varchar(100) NOT NULL,
    category       varchar(32)
);
COMMENT ON TABLE health.cpt_codes IS 'CPT/HCPCS procedure code dictionary.';

CREATE TABLE health.claims (
    claim_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    claim_number   varchar(20) NOT NULL UNIQUE,
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    billing_provider_id bigint REFERENCES health.providers (provider_id),
    rendering_provider_id bigint REFERENCES health.providers (provider_id),
    claim_type     varchar(4) NOT NULL,
    place_of_service char(2),
    service_from_date date NOT NULL,
    service_to_date date NOT NULL,
    received_date  date NOT NULL,
    adjudicated_date date,
    status         varchar(12) NOT NULL,
    is_in_network  boolean,
    total_billed   numeric(12,2) NOT NULL,
    total_allowed  numeric(12,2),
    total_paid     numeric(12,2),
    member_resp    numeric(12,2),
    original_claim_id bigint REFERENCES health.claims (claim_id)
);
COMMENT ON TABLE health.claims IS 'Medical claims (header) submitted by providers for services to members, with adjudication result. One row per claim version.';
COMMENT ON COLUMN health.claims.claim_type IS 'PROF (CMS-1500 professional), INST (UB-04 institutional), DENT.';
COMMENT ON COLUMN health.claims.status IS 'received, pended, paid, denied, adjusted, voided.';
COMMENT ON COLUMN health.claims.total_allowed IS 'Contracted allowed amount - what the plan and member together owe the provider.';
COMMENT ON COLUMN health.claims.member_resp IS 'Member cost share: copay + coinsurance + deductible.';
COMMENT ON COLUMN health.claims.original_claim_id IS 'For adjustments/corrections: the claim being replaced.';

CREATE TABLE health.claim_lines (
    claim_id       bigint NOT NULL REFERENCES health.claims (claim_id),
    line_no        smallint NOT NULL,
    cpt_code       varchar(5) REFERENCES health.cpt_codes (cpt_code),
    revenue_code   char(4),
    modifier_1     char(2),
    units          numeric(8,2) NOT NULL DEFAULT 1,
    service_date   date NOT NULL,
    billed_amt     numeric(12,2) NOT NULL,
    allowed_amt    numeric(12,2),
    paid_amt       numeric(12,2),
    copay_amt      numeric(12,2) NOT NULL DEFAULT 0,
    coinsurance_amt numeric(12,2) NOT NULL DEFAULT 0,
    deductible_amt numeric(12,2) NOT NULL DEFAULT 0,
    denial_code    varchar(8),
    PRIMARY KEY (claim_id, line_no)
);
COMMENT ON TABLE health.claim_lines IS 'Service lines of a claim: procedure, units, billed/allowed/paid amounts and member cost share.';
COMMENT ON COLUMN health.claim_lines.denial_code IS 'CARC claim adjustment reason code when the line was denied or reduced.';
COMMENT ON COLUMN health.claim_lines.revenue_code IS 'UB-04 revenue code for institutional claims (e.g. 0450 emergency room).';

CREATE TABLE health.claim_dx (
    claim_id       bigint NOT NULL REFERENCES health.claims (claim_id),
    dx_seq         smallint NOT NULL,
    icd10_code     varchar(8) NOT NULL REFERENCES health.icd10_codes (icd10_code),
    is_principal   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (claim_id, dx_seq)
);
COMMENT ON TABLE health.claim_dx IS 'Bridge: diagnosis codes on a claim in submitted order; dx_seq 1 is the principal diagnosis.';

CREATE TABLE health.rx_claims (
    rx_claim_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    pharmacy_provider_id bigint REFERENCES health.providers (provider_id),
    ndc_code       char(11) NOT NULL,
    drug_name      varchar(200),
    fill_date      date NOT NULL,
    days_supply    smallint NOT NULL,
    quantity       numeric(10,3) NOT NULL,
    is_generic     boolean,
    ingredient_cost numeric(12,2),
    paid_amt       numeric(12,2),
    copay_amt      numeric(12,2)
);
COMMENT ON TABLE health.rx_claims IS 'Pharmacy claims from the PBM: one row per prescription fill.';
COMMENT ON COLUMN health.rx_claims.ndc_code IS 'National Drug Code (11-digit) of the dispensed product.';

CREATE TABLE health.prior_auths (
    auth_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    requesting_provider_id bigint REFERENCES health.providers (provider_id),
    cpt_code       varchar(5) REFERENCES health.cpt_codes (cpt_code),
    icd10_code     varchar(8) REFERENCES health.icd10_codes (icd10_code),
    status         varchar(12) NOT NULL,
    requested_at   timestamptz NOT NULL,
    decided_at     timestamptz,
    approved_units integer,
    valid_from     date,
    valid_to       date
);
COMMENT ON TABLE health.prior_auths IS 'Prior authorization (pre-certification) requests for services that need approval before they are covered.';

CREATE TABLE health.premiums (
    premium_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    group_id       bigint NOT NULL REFERENCES health.employer_groups (group_id),
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    coverage_month date NOT NULL,
    coverage_tier  varchar(8) NOT NULL,
    subscriber_cnt integer NOT NULL,
    rate_amt       numeric(10,2) NOT NULL,
    billed_amt     numeric(12,2) NOT NULL,
    invoice_id     bigint REFERENCES billing.invoices (invoice_id),
    UNIQUE (group_id, plan_id, coverage_month, coverage_tier)
);
COMMENT ON TABLE health.premiums IS 'Monthly premium billed to each employer group by plan and coverage tier (the revenue side of the health business).';

CREATE TABLE health.capitation_pmts (
    cap_pmt_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider_id    bigint NOT NULL REFERENCES health.providers (provider_id),
    plan_id        integer NOT NULL REFERENCES health.benefit_plans (plan_id),
    coverage_month date NOT NULL,
    member_cnt     integer NOT NULL,
    pmpm_rate      numeric(10,2) NOT NULL,
    paid_amt       numeric(12,2) NOT NULL
);
COMMENT ON TABLE health.capitation_pmts IS 'Fixed per-member-per-month payments to capitated provider groups, independent of services rendered.';

CREATE TABLE health.care_programs (
    program_id     integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    program_name   varchar(100) NOT NULL,
    condition_focus varchar(64)
);
COMMENT ON TABLE health.care_programs IS 'Care / disease management programs (diabetes, maternity, behavioural health).';

CREATE TABLE health.care_program_enrollments (
    program_id     integer NOT NULL REFERENCES health.care_programs (program_id),
    member_id      bigint NOT NULL REFERENCES health.members (member_id),
    care_manager_user_id bigint REFERENCES iam.users (user_id),
    enrolled_on    date NOT NULL,
    disenrolled_on date,
    PRIMARY KEY (program_id, member_id, enrolled_on)
);

-- ---------------------------------------------------------------------
-- intg: integrations, webhooks, imports/exports
-- ---------------------------------------------------------------------

CREATE TABLE intg.integrations (
    integration_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    integration_key varchar(32) NOT NULL UNIQUE,
    display_name   varchar(100) NOT NULL,
    vendor         varchar(100),
    category       varchar(32) NOT NULL,
    auth_type      varchar(16) NOT NULL
);
COMMENT ON TABLE intg.integrations IS 'Catalogue of supported third-party connectors (Salesforce, HubSpot, Stripe, NetSuite, Zendesk, Slack, 834 SFTP feed...).';

CREATE TABLE intg.connections (
    connection_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    integration_id integer NOT NULL REFERENCES intg.integrations (integration_id),
    connection_name varchar(100) NOT NULL,
    status         varchar(16) NOT NULL DEFAULT 'active',
    config         jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_by     bigint REFERENCES iam.users (user_id),
    last_sync_at   timestamptz,
    last_error     text,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE intg.connections IS 'Configured instances of an integration (credentials reference, settings, health).';

CREATE TABLE intg.oauth_tokens (
    connection_id  bigint PRIMARY KEY REFERENCES intg.connections (connection_id),
    access_token_enc bytea NOT NULL,
    refresh_token_enc bytea,
    scope          text,
    expires_at     timestamptz
);
COMMENT ON TABLE intg.oauth_tokens IS 'Encrypted OAuth tokens for connections using OAuth 2.0.';

CREATE TABLE intg.field_mappings (
    mapping_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    connection_id  bigint NOT NULL REFERENCES intg.connections (connection_id),
    local_object   varchar(64) NOT NULL,
    local_field    varchar(64) NOT NULL,
    remote_object  varchar(64) NOT NULL,
    remote_field   varchar(64) NOT NULL,
    direction      varchar(8) NOT NULL DEFAULT 'both',
    transform      text
);
COMMENT ON TABLE intg.field_mappings IS 'Field-level mapping between our objects and the remote system''s objects for a connection.';

CREATE TABLE intg.sync_state (
    connection_id  bigint NOT NULL REFERENCES intg.connections (connection_id),
    remote_object  varchar(64) NOT NULL,
    cursor_value   text,
    last_run_at    timestamptz,
    records_synced bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (connection_id, remote_object)
);

CREATE TABLE intg.webhook_endpoints (
    endpoint_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url            text NOT NULL,
    description    varchar(255),
    event_types    text[] NOT NULL,
    signing_secret_hash varchar(128) NOT NULL,
    connection_id  bigint REFERENCES intg.connections (connection_id),
    api_key_id     bigint REFERENCES iam.api_keys (api_key_id),
    is_enabled     boolean NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE intg.webhook_endpoints IS 'Outbound webhook subscriptions: URLs we POST event notifications to (e.g. invoice.paid, ticket.created).';

CREATE TABLE intg.webhook_deliveries (
    delivery_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id    bigint NOT NULL REFERENCES intg.webhook_endpoints (endpoint_id),
    event_type     varchar(64) NOT NULL,
    event_id       uuid NOT NULL,
    payload        jsonb NOT NULL,
    attempt_no     smallint NOT NULL DEFAULT 1,
    http_status    smallint,
    response_ms    integer,
    delivered_at   timestamptz,
    next_retry_at  timestamptz
);
COMMENT ON TABLE intg.webhook_deliveries IS 'Each attempt to deliver a webhook event, with HTTP status and latency; failed deliveries are retried with backoff.';

CREATE TABLE intg.inbound_webhooks (
    inbound_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source         varchar(32) NOT NULL,
    external_event_id varchar(128),
    event_type     varchar(64),
    payload        jsonb NOT NULL,
    signature_ok   boolean,
    received_at    timestamptz NOT NULL DEFAULT now(),
    processed_at   timestamptz,
    error          text,
    UNIQUE (source, external_event_id)
);
COMMENT ON TABLE intg.inbound_webhooks IS 'Raw webhook callbacks received from vendors (payment gateway, email service provider, telephony) before processing.';

CREATE TABLE intg.import_jobs (
    import_job_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_type       varchar(32) NOT NULL,
    target_object  varchar(64) NOT NULL,
    file_name      varchar(255),
    connection_id  bigint REFERENCES intg.connections (connection_id),
    list_id        bigint REFERENCES crm.contact_lists (list_id),
    status         varchar(16) NOT NULL DEFAULT 'queued',
    rows_total     integer,
    rows_ok        integer,
    rows_failed    integer,
    dedupe_rule    varchar(32),
    started_by     bigint REFERENCES iam.users (user_id),
    started_at     timestamptz,
    finished_at    timestamptz
);
COMMENT ON TABLE intg.import_jobs IS 'Bulk data imports: CSV uploads of contacts/leads (optionally into a contact list), 834 eligibility files, claims feeds.';
COMMENT ON COLUMN intg.import_jobs.job_type IS 'csv_upload, api_bulk, edi_834, edi_837, sftp_feed.';

CREATE TABLE intg.import_job_errors (
    import_job_id  bigint NOT NULL REFERENCES intg.import_jobs (import_job_id),
    row_no         integer NOT NULL,
    error_code     varchar(32) NOT NULL,
    error_message  text,
    raw_row        text,
    PRIMARY KEY (import_job_id, row_no, error_code)
);
COMMENT ON TABLE intg.import_job_errors IS 'Rejected rows of an import job and why they failed validation.';

CREATE TABLE intg.export_jobs (
    export_job_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    export_type    varchar(32) NOT NULL,
    filter_def     jsonb,
    file_url       text,
    row_count      integer,
    requested_by   bigint REFERENCES iam.users (user_id),
    requested_at   timestamptz NOT NULL DEFAULT now(),
    completed_at   timestamptz,
    expires_at     timestamptz
);

CREATE TABLE intg.api_request_log (
    request_id     uuid PRIMARY KEY,
    api_key_id     bigint REFERENCES iam.api_keys (api_key_id),
    http_method    varchar(8) NOT NULL,
    path           text NOT NULL,
    status_code    smallint NOT NULL,
    duration_ms    integer NOT NULL,
    ip_addr        inet,
    requested_at   timestamptz NOT NULL
);
COMMENT ON TABLE intg.api_request_log IS 'Public REST API access log (sampled 100% for errors, 10% for successes), used for rate limiting analysis and debugging.';

-- ---------------------------------------------------------------------
-- analytics: snapshot tables
-- ---------------------------------------------------------------------

CREATE TABLE analytics.dim_date (
    cal_date       date PRIMARY KEY,
    cal_year       smallint NOT NULL,
    cal_quarter    smallint NOT NULL,
    cal_month      smallint NOT NULL,
    month_start    date NOT NULL,
    fiscal_year    smallint NOT NULL,
    fiscal_qtr     char(7) NOT NULL,
    day_of_week    smallint NOT NULL,
    is_weekend     boolean NOT NULL,
    is_us_holiday  boolean NOT NULL DEFAULT false
);
COMMENT ON TABLE analytics.dim_date IS 'Calendar dimension, one row per day, with fiscal periods (fiscal year starts 1 February).';

CREATE TABLE analytics.acct_monthly_metrics (
    account_id     bigint NOT NULL,
    period_month   date NOT NULL,
    mrr_usd        numeric(14,2) NOT NULL DEFAULT 0,
    seats_purchased integer,
    seats_active   integer,
    tickets_opened integer NOT NULL DEFAULT 0,
    avg_csat       numeric(4,2),
    invoices_overdue integer NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, period_month)
);
COMMENT ON TABLE analytics.acct_monthly_metrics IS 'Month-end snapshot of key metrics per customer account (MRR, seat utilisation, support volume, overdue invoices). Grain: account x month.';
COMMENT ON COLUMN analytics.acct_monthly_metrics.seats_active IS 'Distinct licensed users who logged in at least once during the month.';

CREATE TABLE analytics.daily_product_usage (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    usage_date     date NOT NULL,
    active_users   integer NOT NULL,
    sessions       integer NOT NULL,
    api_calls      bigint NOT NULL DEFAULT 0,
    feature_counts jsonb,
    PRIMARY KEY (account_id, usage_date)
);
COMMENT ON TABLE analytics.daily_product_usage IS 'Daily product telemetry rolled up per customer account (DAU, sessions, API calls, per-feature usage).';

CREATE TABLE analytics.cust_health_scores (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    score_date     date NOT NULL,
    health_score   smallint NOT NULL,
    usage_component smallint,
    support_component smallint,
    billing_component smallint,
    sentiment_component smallint,
    color          varchar(8) NOT NULL,
    PRIMARY KEY (account_id, score_date)
);
COMMENT ON TABLE analytics.cust_health_scores IS 'Customer success health score (0-100, red/yellow/green) per account per day, combining usage, support, billing and NPS signals.';

CREATE TABLE analytics.churn_predictions (
    account_id     bigint NOT NULL REFERENCES crm.accounts (account_id),
    predicted_on   date NOT NULL,
    model_version  varchar(16) NOT NULL,
    churn_prob_90d numeric(5,4) NOT NULL,
    top_drivers    jsonb,
    PRIMARY KEY (account_id, predicted_on, model_version)
);
COMMENT ON TABLE analytics.churn_predictions IS 'ML churn-risk predictions: probability that the account cancels within 90 days, with top contributing factors.';

CREATE TABLE analytics.etl_runs (
    run_id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_name       varchar(100) NOT NULL,
    started_at     timestamptz NOT NULL,
    finished_at    timestamptz,
    status         varchar(16) NOT NULL,
    rows_written   bigint,
    error          text
);

-- ---------------------------------------------------------------------
-- audit
-- ---------------------------------------------------------------------

CREATE TABLE audit.audit_log (
    audit_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at    timestamptz NOT NULL DEFAULT now(),
    actor_user_id  bigint REFERENCES iam.users (user_id),
    actor_api_key_id bigint REFERENCES iam.api_keys (api_key_id),
    action         varchar(16) NOT NULL,
    table_schema   varchar(32) NOT NULL,
    table_name     varchar(64) NOT NULL,
    record_pk      text NOT NULL,
    old_values     jsonb,
    new_values     jsonb,
    request_id     uuid,
    ip_addr        inet
);
COMMENT ON TABLE audit.audit_log IS 'Row-level change history for business tables: who inserted/updated/deleted what and when, with before/after values. Append-only; retained 7 years.';
COMMENT ON COLUMN audit.audit_log.record_pk IS 'Primary key of the changed row, as text (compound keys joined with ''|'').';

CREATE TABLE audit.login_events (
    login_event_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        bigint REFERENCES iam.users (user_id),
    email_attempted varchar(255),
    success        boolean NOT NULL,
    failure_reason varchar(32),
    mfa_method     varchar(16),
    sso_provider_id integer REFERENCES iam.sso_providers (sso_provider_id),
    ip_addr        inet,
    occurred_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE audit.login_events IS 'Staff sign-in attempts (successful and failed) for security monitoring.';

CREATE TABLE audit.phi_access_log (
    access_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES iam.users (user_id),
    member_id      bigint REFERENCES health.members (member_id),
    claim_id       bigint REFERENCES health.claims (claim_id),
    access_reason  varchar(64) NOT NULL,
    accessed_at    timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE audit.phi_access_log IS 'HIPAA access log: every staff view of protected health information (member or claim records), with the stated reason.';

CREATE TABLE audit.gdpr_requests (
    request_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    request_type   varchar(16) NOT NULL,
    subject_email  varchar(255) NOT NULL,
    contact_id     bigint REFERENCES crm.contacts (contact_id),
    received_at    timestamptz NOT NULL,
    due_by         date NOT NULL,
    status         varchar(16) NOT NULL DEFAULT 'open',
    handled_by     bigint REFERENCES iam.users (user_id),
    completed_at   timestamptz
);
COMMENT ON TABLE audit.gdpr_requests IS 'Data subject requests under GDPR/CCPA (access, erasure, rectification, portability) and their handling deadline.';

CREATE TABLE audit.record_deletions (
    deletion_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_schema   varchar(32) NOT NULL,
    table_name     varchar(64) NOT NULL,
    record_pk      text NOT NULL,
    gdpr_request_id bigint REFERENCES audit.gdpr_requests (request_id),
    deleted_by     bigint REFERENCES iam.users (user_id),
    deleted_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit.config_changes (
    change_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    setting_key    varchar(100) REFERENCES public.app_settings (setting_key),
    old_value      jsonb,
    new_value      jsonb,
    changed_by     bigint REFERENCES iam.users (user_id),
    changed_at     timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE audit.config_changes IS 'History of changes to application settings.';

-- =====================================================================
-- Deferred foreign keys (circular or cross-schema references)
-- =====================================================================

ALTER TABLE iam.users
    ADD CONSTRAINT fk_users_default_territory FOREIGN KEY (default_territory_id) REFERENCES crm.territories (territory_id);

ALTER TABLE crm.leads
    ADD CONSTRAINT fk_leads_first_campaign FOREIGN KEY (first_campaign_id) REFERENCES marketing.campaigns (campaign_id);

ALTER TABLE crm.opportunities
    ADD CONSTRAINT fk_opps_primary_campaign FOREIGN KEY (primary_campaign_id) REFERENCES marketing.campaigns (campaign_id);

ALTER TABLE crm.lead_conv_log
    ADD CONSTRAINT fk_lead_conv_opportunity FOREIGN KEY (opportunity_id) REFERENCES crm.opportunities (opportunity_id);

ALTER TABLE billing.billing_accounts
    ADD CONSTRAINT fk_billing_accounts_dunning_policy FOREIGN KEY (dunning_policy_id) REFERENCES billing.dunning_policies (dunning_policy_id);

ALTER TABLE billing.coupons
    ADD CONSTRAINT fk_coupons_campaign FOREIGN KEY (campaign_id) REFERENCES marketing.campaigns (campaign_id);

ALTER TABLE billing.dunning_steps
    ADD CONSTRAINT fk_dunning_steps_template FOREIGN KEY (email_template_id) REFERENCES marketing.email_templates (template_id);

ALTER TABLE billing.ar_aging_snapshot
    ADD CONSTRAINT fk_ar_aging_currency FOREIGN KEY (currency_code) REFERENCES ref.currencies (currency_code);

ALTER TABLE billing.je_lines
    ADD CONSTRAINT fk_je_lines_currency FOREIGN KEY (currency_code) REFERENCES ref.currencies (currency_code);

ALTER TABLE marketing.ab_tests
    ADD CONSTRAINT fk_ab_tests_winner FOREIGN KEY (winner_variant_id) REFERENCES marketing.ab_variants (variant_id);

ALTER TABLE marketing.web_sessions
    ADD CONSTRAINT fk_web_sessions_country FOREIGN KEY (country_code) REFERENCES ref.countries (country_code);

ALTER TABLE health.benefit_plans
    ADD CONSTRAINT fk_benefit_plans_network FOREIGN KEY (network_id) REFERENCES health.provider_networks (network_id);

ALTER TABLE health.eligibility_spans
    ADD CONSTRAINT fk_elig_spans_source_file FOREIGN KEY (source_file_id) REFERENCES intg.import_jobs (import_job_id);

ALTER TABLE analytics.acct_monthly_metrics
    ADD CONSTRAINT fk_acct_monthly_metrics_period FOREIGN KEY (account_id, period_month)
        REFERENCES billing.acct_periods (account_id, period_month);

-- =====================================================================
-- Reporting views
-- =====================================================================

CREATE VIEW analytics.v_pmpm AS
WITH mm AS (
    SELECT plan_id, coverage_month, count(*) AS member_months
    FROM health.member_months
    GROUP BY plan_id, coverage_month
), med AS (
    SELECT c.plan_id,
           date_trunc('month', cl.service_date)::date AS coverage_month,
           sum(cl.paid_amt) AS medical_paid
    FROM health.claims c
    JOIN health.claim_lines cl ON cl.claim_id = c.claim_id
    WHERE c.status = 'paid'
    GROUP BY c.plan_id, date_trunc('month', cl.service_date)::date
), rx AS (
    SELECT plan_id,
           date_trunc('month', fill_date)::date AS coverage_month,
           sum(paid_amt) AS rx_paid
    FROM health.rx_claims
    GROUP BY plan_id, date_trunc('month', fill_date)::date
)
SELECT mm.plan_id,
       bp.plan_code,
       bp.plan_name,
       mm.coverage_month,
       mm.member_months,
       coalesce(med.medical_paid, 0) AS medical_paid,
       coalesce(rx.rx_paid, 0) AS rx_paid,
       coalesce(med.medical_paid, 0) + coalesce(rx.rx_paid, 0) AS total_paid,
       round((coalesce(med.medical_paid, 0) + coalesce(rx.rx_paid, 0)) / mm.member_months, 2) AS pmpm
FROM mm
JOIN health.benefit_plans bp ON bp.plan_id = mm.plan_id
LEFT JOIN med ON med.plan_id = mm.plan_id AND med.coverage_month = mm.coverage_month
LEFT JOIN rx ON rx.plan_id = mm.plan_id AND rx.coverage_month = mm.coverage_month;
COMMENT ON VIEW analytics.v_pmpm IS 'Per-member-per-month (PMPM) cost by health plan and month: total paid claim cost (medical + pharmacy) divided by member months. The core medical-cost trend metric for the health business.';

CREATE VIEW analytics.v_mrr AS
WITH months AS (
    SELECT DISTINCT month_start FROM analytics.dim_date
), item_mrr AS (
    SELECT m.month_start,
           ba.billing_account_id,
           ba.account_id,
           ba.currency_code,
           s.subscription_id,
           si.quantity * coalesce(si.unit_amount_override, pp.unit_amount)
               / CASE pp.billing_interval WHEN 'month' THEN 1 WHEN 'quarter' THEN 3 ELSE 12 END AS mrr
    FROM months m
    JOIN billing.subscription_items si
      ON si.started_at <= m.month_start AND (si.ended_at IS NULL OR si.ended_at > m.month_start)
    JOIN billing.subscriptions s ON s.subscription_id = si.subscription_id
    JOIN billing.plan_prices pp ON pp.plan_price_id = si.plan_price_id
    JOIN billing.billing_accounts ba ON ba.billing_account_id = s.billing_account_id
    WHERE s.status <> 'trialing'
)
SELECT i.month_start,
       i.currency_code,
       count(DISTINCT i.account_id) AS paying_accounts,
       count(DISTINCT i.subscription_id) AS active_subscriptions,
       sum(i.mrr) AS mrr,
       sum(i.mrr * CASE WHEN i.currency_code = 'USD' THEN 1 ELSE fx.rate END) AS mrr_usd
FROM item_mrr i
LEFT JOIN billing.exchange_rates fx
       ON fx.rate_date = i.month_start AND fx.from_currency = i.currency_code AND fx.to_currency = 'USD'
GROUP BY i.month_start, i.currency_code;
COMMENT ON VIEW analytics.v_mrr IS 'Monthly recurring revenue (MRR) at the start of each month, by billing currency and converted to USD. Annual and quarterly prices are normalised to a monthly amount; trials excluded.';

CREATE VIEW analytics.v_ticket_backlog AS
SELECT q.queue_name,
       t.priority,
       count(*) AS open_tickets,
       sum(CASE WHEN t.assignee_user_id IS NULL THEN 1 ELSE 0 END) AS unassigned_tickets,
       sum(CASE WHEN t.status = 'pending' THEN 1 ELSE 0 END) AS waiting_on_customer,
       sum(CASE WHEN t.created_at < now() - interval '7 days' THEN 1 ELSE 0 END) AS older_than_7_days,
       sum(CASE WHEN EXISTS (SELECT 1 FROM support.ticket_sla_events se
                             WHERE se.ticket_id = t.ticket_id AND se.is_breached) THEN 1 ELSE 0 END) AS sla_breached,
       min(t.created_at) AS oldest_created_at
FROM support.tickets t
LEFT JOIN support.queues q ON q.queue_id = t.queue_id
WHERE t.status IN ('new', 'open', 'pending', 'on_hold')
GROUP BY q.queue_name, t.priority;
COMMENT ON VIEW analytics.v_ticket_backlog IS 'Current support backlog: unsolved tickets per queue and priority, with unassigned, aged and SLA-breached counts.';

CREATE VIEW analytics.v_campaign_performance AS
WITH rcp AS (
    SELECT campaign_id, count(*) AS recipients
    FROM marketing.campaign_recipients
    GROUP BY campaign_id
), ev AS (
    SELECT cr.campaign_id,
           count(DISTINCT cr.recipient_id) FILTER (WHERE ee.event_type = 'delivered') AS delivered,
           count(DISTINCT cr.recipient_id) FILTER (WHERE ee.event_type = 'open' AND NOT ee.is_machine_open) AS unique_opens,
           count(DISTINCT cr.recipient_id) FILTER (WHERE ee.event_type = 'click') AS unique_clicks,
           count(DISTINCT cr.recipient_id) FILTER (WHERE ee.event_type = 'bounce') AS bounces,
           count(DISTINCT cr.recipient_id) FILTER (WHERE ee.event_type = 'unsubscribe') AS unsubscribes
    FROM marketing.campaign_recipients cr
    JOIN marketing.email_events ee ON ee.recipient_id = cr.recipient_id
    GROUP BY cr.campaign_id
), cost AS (
    SELECT campaign_id, sum(amount) AS actual_cost
    FROM marketing.campaign_costs
    GROUP BY campaign_id
), opp AS (
    SELECT o.primary_campaign_id AS campaign_id,
           count(*) AS opps_sourced,
           sum(o.amount) FILTER (WHERE s.is_won) AS won_amount
    FROM crm.opportunities o
    JOIN crm.stages s ON s.stage_id = o.stage_id
    WHERE o.primary_campaign_id IS NOT NULL
    GROUP BY o.primary_campaign_id
)
SELECT c.campaign_id,
       c.campaign_name,
       c.campaign_type,
       c.start_date,
       coalesce(rcp.recipients, 0) AS recipients,
       coalesce(ev.delivered, 0) AS delivered,
       coalesce(ev.unique_opens, 0) AS unique_opens,
       coalesce(ev.unique_clicks, 0) AS unique_clicks,
       coalesce(ev.bounces, 0) AS bounces,
       coalesce(ev.unsubscribes, 0) AS unsubscribes,
       round(100.0 * ev.unique_opens / nullif(ev.delivered, 0), 2) AS open_rate_pct,
       round(100.0 * ev.unique_clicks / nullif(ev.delivered, 0), 2) AS click_rate_pct,
       cost.actual_cost,
       coalesce(opp.opps_sourced, 0) AS opps_sourced,
       coalesce(opp.won_amount, 0) AS won_amount
FROM marketing.campaigns c
LEFT JOIN rcp ON rcp.campaign_id = c.campaign_id
LEFT JOIN ev ON ev.campaign_id = c.campaign_id
LEFT JOIN cost ON cost.campaign_id = c.campaign_id
LEFT JOIN opp ON opp.campaign_id = c.campaign_id;
COMMENT ON VIEW analytics.v_campaign_performance IS 'Campaign scorecard: audience size, email delivery/open/click/bounce/unsubscribe counts and rates, spend, and sourced pipeline and won revenue.';

CREATE VIEW analytics.v_pipeline_by_stage AS
SELECT p.pipeline_name,
       s.stage_name,
       s.sort_order,
       count(*) AS open_opps,
       sum(o.arr_amount_usd) AS arr_usd,
       sum(o.arr_amount_usd * coalesce(o.probability, s.win_probability) / 100) AS weighted_arr_usd
FROM crm.opportunities o
JOIN crm.stages s ON s.stage_id = o.stage_id
JOIN crm.pipelines p ON p.pipeline_id = o.pipeline_id
WHERE NOT s.is_closed
GROUP BY p.pipeline_name, s.stage_name, s.sort_order;
COMMENT ON VIEW analytics.v_pipeline_by_stage IS 'Open sales pipeline by pipeline and stage: deal count, ARR and probability-weighted ARR in USD.';

CREATE VIEW analytics.v_open_ar AS
SELECT i.invoice_id,
       i.invoice_number,
       ba.billing_account_id,
       ba.account_id,
       a.account_name,
       i.currency_code,
       i.invoice_date,
       i.due_date,
       i.amount_due,
       greatest(current_date - i.due_date, 0) AS days_past_due,
       CASE
           WHEN current_date <= i.due_date THEN 'current'
           WHEN current_date - i.due_date <= 30 THEN '1-30'
           WHEN current_date - i.due_date <= 60 THEN '31-60'
           WHEN current_date - i.due_date <= 90 THEN '61-90'
           ELSE '90+'
       END AS aging_bucket
FROM billing.invoices i
JOIN billing.billing_accounts ba ON ba.billing_account_id = i.billing_account_id
JOIN crm.accounts a ON a.account_id = ba.account_id
WHERE i.status IN ('open', 'partially_paid') AND i.amount_due > 0;
COMMENT ON VIEW analytics.v_open_ar IS 'Live list of unpaid invoices with days past due and aging bucket (the live counterpart of billing.ar_aging_snapshot).';

CREATE VIEW analytics.v_csat_by_agent AS
SELECT u.user_id,
       u.full_name AS agent_name,
       date_trunc('month', r.responded_at)::date AS response_month,
       count(*) AS responses,
       avg(r.score) AS avg_score,
       round(100.0 * sum(CASE WHEN r.score >= 4 THEN 1 ELSE 0 END) / count(*), 1) AS csat_pct
FROM support.csat_responses r
JOIN iam.users u ON u.user_id = r.agent_user_id
WHERE r.responded_at IS NOT NULL
GROUP BY u.user_id, u.full_name, date_trunc('month', r.responded_at)::date;

CREATE VIEW health.v_active_members AS
SELECT m.member_id,
       m.member_number,
       m.first_name,
       m.last_name,
       m.birth_date,
       es.plan_id,
       bp.plan_name,
       es.group_id,
       eg.group_name,
       es.coverage_tier,
       es.start_date
FROM health.members m
JOIN health.eligibility_spans es ON es.member_id = m.member_id
JOIN health.benefit_plans bp ON bp.plan_id = es.plan_id
LEFT JOIN health.employer_groups eg ON eg.group_id = es.group_id
WHERE es.start_date <= current_date
  AND (es.end_date IS NULL OR es.end_date >= current_date)
  AND m.deceased_date IS NULL;
COMMENT ON VIEW health.v_active_members IS 'Members with coverage in force today, with their plan and employer group.';

CREATE VIEW crm.v_account_primary_contact AS
SELECT a.account_id,
       a.account_name,
       c.contact_id,
       c.first_name,
       c.last_name,
       c.email,
       c.job_title
FROM crm.accounts a
LEFT JOIN crm.contacts c
       ON c.account_id = a.account_id AND c.is_primary AND NOT c.is_deleted
WHERE NOT a.is_deleted;
COMMENT ON VIEW crm.v_account_primary_contact IS 'Each active account with its primary contact person (if any).';
