-- shop.sql -- small online shop schema (SQLite dialect)
-- Load with: sqlite3 shop.db < shop.sql

PRAGMA foreign_keys = ON;

-- Product taxonomy; categories nest via parent_id (e.g. Kitchen > Cookware > Pans).
CREATE TABLE categories (
    category_id   INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    parent_id     INTEGER REFERENCES categories (category_id),
    slug          TEXT NOT NULL UNIQUE
);

-- Companies we buy stock from.
CREATE TABLE suppliers (
    supplier_id   INTEGER PRIMARY KEY,
    company_name  TEXT NOT NULL,
    contact_email TEXT,
    country       TEXT,
    lead_time_days INTEGER DEFAULT 14  -- typical days from purchase order to delivery at our warehouse
);

CREATE TABLE products (
    product_id    INTEGER PRIMARY KEY,
    sku           TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    description   TEXT,
    category_id   INTEGER NOT NULL REFERENCES categories (category_id),
    supplier_id   INTEGER REFERENCES suppliers (supplier_id),
    unit_price    NUMERIC NOT NULL CHECK (unit_price >= 0),  -- current selling price, EUR incl. VAT
    cost_price    NUMERIC,                                   -- what we pay the supplier
    stock_qty     INTEGER NOT NULL DEFAULT 0,
    is_active     INTEGER NOT NULL DEFAULT 1,                -- 0 = discontinued, hidden from the storefront
    created_at    TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Registered shoppers. Guest checkouts also create a row with is_guest = 1.
CREATE TABLE customers (
    customer_id   INTEGER PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    first_name    TEXT,
    last_name     TEXT,
    phone         TEXT,
    is_guest      INTEGER NOT NULL DEFAULT 0,
    marketing_opt_in INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Saved shipping / billing addresses of a customer.
CREATE TABLE addresses (
    address_id    INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL REFERENCES customers (customer_id) ON DELETE CASCADE,
    line1         TEXT NOT NULL,
    line2         TEXT,
    city          TEXT NOT NULL,
    postal_code   TEXT NOT NULL,
    country       TEXT NOT NULL,
    is_default    INTEGER NOT NULL DEFAULT 0
);

-- One row per checkout. Totals are denormalised from order_items at checkout time.
CREATE TABLE orders (
    order_id      INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL REFERENCES customers (customer_id),
    shipping_address_id INTEGER REFERENCES addresses (address_id),
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded')),
    order_total   NUMERIC NOT NULL,
    shipping_fee  NUMERIC NOT NULL DEFAULT 0,
    coupon_code   TEXT,
    placed_at     TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE order_items (
    order_id      INTEGER NOT NULL,
    line_no       INTEGER NOT NULL,
    product_id    INTEGER NOT NULL,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    unit_price    NUMERIC NOT NULL,   -- price charged at time of order (products.unit_price may change later)
    PRIMARY KEY (order_id, line_no),
    FOREIGN KEY (order_id) REFERENCES orders (order_id) ON DELETE CASCADE,
    FOREIGN KEY (product_id) REFERENCES products (product_id)
);

-- Card / PayPal payments captured for an order.
CREATE TABLE payments (
    payment_id    INTEGER PRIMARY KEY,
    order_id      INTEGER NOT NULL REFERENCES orders (order_id),
    method        TEXT NOT NULL,      -- card, paypal, klarna, gift_card
    amount        NUMERIC NOT NULL,
    status        TEXT NOT NULL,      -- authorized, captured, failed, refunded
    paid_at       TEXT
);

-- Parcels sent to customers; one order may ship in several parcels.
CREATE TABLE shipments (
    shipment_id   INTEGER PRIMARY KEY,
    order_id      INTEGER NOT NULL REFERENCES orders (order_id),
    carrier       TEXT NOT NULL,      -- DHL, UPS, PostNL ...
    tracking_no   TEXT,
    shipped_at    TEXT,
    delivered_at  TEXT
);

-- Star ratings and written reviews left by customers on products they bought.
CREATE TABLE reviews (
    review_id     INTEGER PRIMARY KEY,
    product_id    INTEGER NOT NULL REFERENCES products (product_id),
    customer_id   INTEGER NOT NULL REFERENCES customers (customer_id),
    rating        INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    title         TEXT,
    body          TEXT,
    is_verified_purchase INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (product_id, customer_id)
);

-- Products a customer has saved for later.
CREATE TABLE wishlist_items (
    customer_id   INTEGER NOT NULL REFERENCES customers (customer_id),
    product_id    INTEGER NOT NULL REFERENCES products (product_id),
    added_at      TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (customer_id, product_id)
);

CREATE INDEX idx_orders_customer ON orders (customer_id);
CREATE INDEX idx_order_items_product ON order_items (product_id);
CREATE INDEX idx_products_category ON products (category_id);

-- Revenue per product category (delivered / shipped / paid orders only).
CREATE VIEW v_category_sales AS
SELECT c.category_id,
       c.name AS category_name,
       SUM(oi.quantity) AS units_sold,
       SUM(oi.quantity * oi.unit_price) AS revenue
FROM order_items oi
JOIN orders o ON o.order_id = oi.order_id
JOIN products p ON p.product_id = oi.product_id
JOIN categories c ON c.category_id = p.category_id
WHERE o.status IN ('paid', 'shipped', 'delivered')
GROUP BY c.category_id, c.name;
