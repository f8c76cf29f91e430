-- shop_data.sql -- rows for sample_schemas/shop.sql (SQLite): a few months of a small shop.
-- Build sample_schemas/shop.db with: python scripts/make_sample_db.py
-- Orders run from September to November 2026. Two suppliers share the name Acme
-- (Acme Ltd and Acme GmbH), so "revenue of Acme" is ambiguous on purpose.

INSERT INTO categories (category_id, name, parent_id, slug) VALUES
    (1, 'Kitchen', NULL, 'kitchen'),
    (2, 'Cookware', 1, 'cookware'),
    (3, 'Garden', NULL, 'garden'),
    (4, 'Tools', 3, 'garden-tools'),
    (5, 'Lighting', NULL, 'lighting'),
    (6, 'Storage', NULL, 'storage');

INSERT INTO suppliers (supplier_id, company_name, contact_email, country, lead_time_days) VALUES
    (1, 'Acme Ltd', 'orders@acme.co.uk', 'GB', 10),
    (2, 'Acme GmbH', 'vertrieb@acme-gmbh.de', 'DE', 7),
    (3, 'Nordic Home AB', 'sales@nordichome.se', 'SE', 14),
    (4, 'Garden Pro BV', 'info@gardenpro.nl', 'NL', 5),
    (5, 'Lumen & Co', 'hello@lumenco.fr', 'FR', 21);

INSERT INTO products (product_id, sku, name, description, category_id, supplier_id, unit_price, cost_price, stock_qty, is_active, created_at) VALUES
    (1, 'ACM-PAN-24', 'Cast iron pan 24 cm', 'Pre-seasoned, oven safe.', 2, 1, 39.9, 18.0, 40, 1, '2026-03-01 09:00:00'),
    (2, 'ACM-POT-5L', 'Stock pot 5 l', 'Stainless steel, induction ready.', 2, 1, 54.0, 25.0, 25, 1, '2026-03-01 09:00:00'),
    (3, 'ACM-KNF-3', 'Kitchen knife set', 'Three knives with a beech block.', 1, 1, 79.0, 33.0, 12, 1, '2026-04-12 10:30:00'),
    (4, 'ACG-SHR-01', 'Hedge shears', 'Carbon steel blades.', 4, 2, 29.5, 12.0, 30, 1, '2026-02-15 08:00:00'),
    (5, 'ACG-HOS-25', 'Garden hose 25 m', 'Kink-free, with spray nozzle.', 3, 2, 34.0, 14.5, 50, 1, '2026-02-15 08:00:00'),
    (6, 'ACG-DRL-18', 'Cordless drill 18 V', 'Two batteries included.', 4, 2, 89.0, 41.0, 15, 1, '2026-05-20 11:00:00'),
    (7, 'NH-BOX-L', 'Storage box large', 'Recycled plastic, 60 l.', 6, 3, 19.9, 7.5, 80, 1, '2026-01-10 12:00:00'),
    (8, 'NH-SHF-3', 'Wall shelf oak', '80 cm, brackets included.', 6, 3, 45.0, 20.0, 20, 1, '2026-01-10 12:00:00'),
    (9, 'GP-RAK-01', 'Leaf rake', 'Steel tines, ash handle.', 4, 4, 17.5, 6.0, 35, 1, '2026-02-01 08:00:00'),
    (10, 'GP-SEC-02', 'Pruning secateurs', 'Bypass blades.', 4, 4, 24.0, 9.0, 0, 0, '2026-02-01 08:00:00'),
    (11, 'LU-LMP-DK', 'Desk lamp', 'LED, warm white.', 5, 5, 49.0, 21.0, 18, 1, '2026-06-05 14:00:00'),
    (12, 'LU-STR-10', 'String lights 10 m', 'Outdoor rated.', 5, 5, 22.0, 8.0, 60, 1, '2026-06-05 14:00:00');

INSERT INTO customers (customer_id, email, first_name, last_name, phone, is_guest, marketing_opt_in, created_at) VALUES
    (1, 'ann.berg@example.com', 'Ann', 'Berg', '+46 70 123 45 67', 0, 1, '2026-01-04 10:00:00'),
    (2, 'bob.klein@example.com', 'Bob', 'Klein', NULL, 0, 0, '2026-02-11 18:20:00'),
    (3, 'chloe.martin@example.com', 'Chloe', 'Martin', '+33 6 12 34 56 78', 0, 1, '2026-03-22 09:15:00'),
    (4, 'dev.patel@example.com', 'Dev', 'Patel', NULL, 0, 0, '2026-05-30 21:05:00'),
    (5, 'guest-5@example.com', NULL, NULL, NULL, 1, 0, '2026-09-14 13:40:00'),
    (6, 'eva.novak@example.com', 'Eva', 'Novak', '+420 601 234 567', 0, 1, '2026-07-01 08:00:00'),
    (7, 'finn.olsen@example.com', 'Finn', 'Olsen', NULL, 0, 0, '2026-08-19 16:30:00'),
    (8, 'guest-8@example.com', NULL, NULL, NULL, 1, 0, '2026-11-03 19:10:00');

INSERT INTO addresses (address_id, customer_id, line1, line2, city, postal_code, country, is_default) VALUES
    (1, 1, 'Storgatan 1', NULL, 'Stockholm', '111 22', 'SE', 1),
    (2, 2, 'Hauptstrasse 5', '2. OG', 'Berlin', '10115', 'DE', 1),
    (3, 3, '12 rue de la Paix', NULL, 'Paris', '75002', 'FR', 1),
    (4, 4, '1 High Street', NULL, 'London', 'EC1A 1BB', 'GB', 1),
    (5, 5, 'Damrak 10', NULL, 'Amsterdam', '1012 LG', 'NL', 0),
    (6, 6, 'Na Prikope 3', NULL, 'Prague', '110 00', 'CZ', 1),
    (7, 7, 'Karl Johans gate 7', NULL, 'Oslo', '0154', 'NO', 1),
    (8, 8, 'Leopoldstrasse 20', NULL, 'Munich', '80802', 'DE', 0);

INSERT INTO orders (order_id, customer_id, shipping_address_id, status, order_total, shipping_fee, coupon_code, placed_at) VALUES
    (1, 1, 1, 'delivered', 79.7, 0, NULL, '2026-09-03 10:12:00'),
    (2, 2, 2, 'delivered', 63.5, 0, NULL, '2026-09-08 19:45:00'),
    (3, 3, 3, 'delivered', 53.9, 4.9, 'WELCOME10', '2026-09-15 08:30:00'),
    (4, 5, 5, 'cancelled', 89.0, 0, NULL, '2026-09-20 22:05:00'),
    (5, 4, 4, 'refunded', 79.0, 0, NULL, '2026-09-27 14:00:00'),
    (6, 1, 1, 'delivered', 98.0, 0, NULL, '2026-10-02 09:00:00'),
    (7, 6, 6, 'delivered', 124.0, 0, NULL, '2026-10-06 17:25:00'),
    (8, 7, 7, 'delivered', 68.0, 0, NULL, '2026-10-11 11:11:00'),
    (9, 2, 2, 'shipped', 124.8, 0, NULL, '2026-10-18 20:40:00'),
    (10, 3, 3, 'delivered', 78.9, 0, 'AUTUMN5', '2026-10-24 13:05:00'),
    (11, 4, 4, 'cancelled', 79.0, 0, NULL, '2026-10-30 23:59:00'),
    (12, 6, 6, 'delivered', 108.0, 0, NULL, '2026-11-02 08:45:00'),
    (13, 8, 8, 'paid', 123.0, 0, NULL, '2026-11-05 19:30:00'),
    (14, 1, 1, 'shipped', 128.0, 0, NULL, '2026-11-12 12:00:00'),
    (15, 7, 7, 'paid', 51.9, 4.9, NULL, '2026-11-19 10:20:00'),
    (16, 5, 5, 'pending', 44.8, 4.9, NULL, '2026-11-26 21:15:00'),
    (17, 2, 2, 'paid', 111.0, 0, NULL, '2026-11-29 16:00:00'),
    (18, 3, 3, 'pending', 178.0, 0, NULL, '2026-11-30 23:30:00');

INSERT INTO order_items (order_id, line_no, product_id, quantity, unit_price) VALUES
    (1, 1, 1, 1, 39.9),
    (1, 2, 7, 2, 19.9),
    (2, 1, 4, 1, 29.5),
    (2, 2, 5, 1, 34.0),
    (3, 1, 11, 1, 49.0),
    (4, 1, 6, 1, 89.0),
    (5, 1, 3, 1, 79.0),
    (6, 1, 2, 1, 54.0),
    (6, 2, 12, 2, 22.0),
    (7, 1, 6, 1, 89.0),
    (7, 2, 9, 2, 17.5),
    (8, 1, 5, 2, 34.0),
    (9, 1, 1, 2, 39.9),
    (9, 2, 8, 1, 45.0),
    (10, 1, 4, 2, 29.5),
    (10, 2, 7, 1, 19.9),
    (11, 1, 3, 1, 79.0),
    (12, 1, 2, 2, 54.0),
    (13, 1, 6, 1, 89.0),
    (13, 2, 5, 1, 34.0),
    (14, 1, 3, 1, 79.0),
    (14, 2, 11, 1, 49.0),
    (15, 1, 4, 1, 29.5),
    (15, 2, 9, 1, 17.5),
    (16, 1, 1, 1, 39.9),
    (17, 1, 12, 3, 22.0),
    (17, 2, 8, 1, 45.0),
    (18, 1, 6, 2, 89.0);

INSERT INTO payments (payment_id, order_id, method, amount, status, paid_at) VALUES
    (1, 1, 'paypal', 79.7, 'captured', '2026-09-03 10:12:00'),
    (2, 2, 'klarna', 63.5, 'captured', '2026-09-08 19:45:00'),
    (3, 3, 'card', 53.9, 'captured', '2026-09-15 08:30:00'),
    (4, 4, 'gift_card', 89.0, 'failed', '2026-09-20 22:05:00'),
    (5, 5, 'card', 79.0, 'refunded', '2026-09-27 14:00:00'),
    (6, 6, 'paypal', 98.0, 'captured', '2026-10-02 09:00:00'),
    (7, 7, 'klarna', 124.0, 'captured', '2026-10-06 17:25:00'),
    (8, 8, 'card', 68.0, 'captured', '2026-10-11 11:11:00'),
    (9, 9, 'gift_card', 124.8, 'captured', '2026-10-18 20:40:00'),
    (10, 10, 'card', 78.9, 'captured', '2026-10-24 13:05:00'),
    (11, 11, 'paypal', 79.0, 'failed', '2026-10-30 23:59:00'),
    (12, 12, 'klarna', 108.0, 'captured', '2026-11-02 08:45:00'),
    (13, 13, 'card', 123.0, 'captured', '2026-11-05 19:30:00'),
    (14, 14, 'gift_card', 128.0, 'captured', '2026-11-12 12:00:00'),
    (15, 15, 'card', 51.9, 'captured', '2026-11-19 10:20:00'),
    (16, 17, 'klarna', 111.0, 'captured', '2026-11-29 16:00:00');

INSERT INTO shipments (shipment_id, order_id, carrier, tracking_no, shipped_at, delivered_at) VALUES
    (1, 1, 'UPS', 'TRK1001', '2026-09-04 10:12:00', '2026-09-06 10:12:00'),
    (2, 2, 'PostNL', 'TRK1002', '2026-09-09 19:45:00', '2026-09-11 19:45:00'),
    (3, 3, 'DHL', 'TRK1003', '2026-09-16 08:30:00', '2026-09-18 08:30:00'),
    (4, 6, 'DHL', 'TRK1006', '2026-10-03 09:00:00', '2026-10-05 09:00:00'),
    (5, 7, 'UPS', 'TRK1007', '2026-10-07 17:25:00', '2026-10-09 17:25:00'),
    (6, 8, 'PostNL', 'TRK1008', '2026-10-12 11:11:00', '2026-10-14 11:11:00'),
    (7, 9, 'DHL', 'TRK1009', '2026-10-19 20:40:00', NULL),
    (8, 10, 'UPS', 'TRK1010', '2026-10-25 13:05:00', '2026-10-27 13:05:00'),
    (9, 12, 'DHL', 'TRK1012', '2026-11-03 08:45:00', '2026-11-05 08:45:00'),
    (10, 14, 'PostNL', 'TRK1014', '2026-11-13 12:00:00', NULL);

INSERT INTO reviews (review_id, product_id, customer_id, rating, title, body, is_verified_purchase, created_at) VALUES
    (1, 1, 1, 5, 'Great pan', 'Heats evenly.', 1, '2026-09-10 18:00:00'),
    (2, 5, 2, 4, 'Good hose', NULL, 1, '2026-09-15 09:00:00'),
    (3, 11, 3, 3, 'OK lamp', 'A bit dim.', 1, '2026-09-25 20:00:00'),
    (4, 6, 6, 5, 'Strong drill', NULL, 1, '2026-10-12 10:00:00'),
    (5, 7, 3, 2, 'Lid cracked', 'The lid cracked after a week.', 1, '2026-10-30 12:00:00');

INSERT INTO wishlist_items (customer_id, product_id, added_at) VALUES
    (1, 6, '2026-10-01 08:00:00'),
    (4, 1, '2026-09-01 12:00:00'),
    (7, 11, '2026-11-20 21:00:00');
