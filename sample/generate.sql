-- generate.sql: fills the billing sample with :customers customers (default
-- 1000), about three subscriptions each, deterministic for a given count.
--
--   psql -v customers=100000 -f sample/generate.sql

\set ON_ERROR_STOP 1
\if :{?customers}
\else
\set customers 1000
\endif
SET client_min_messages = warning;

TRUNCATE billing.subscription_addons, billing.subscriptions, billing.customers,
         billing.prices, billing.addons, billing.plans, billing.features, billing.products;

INSERT INTO billing.products
SELECT md5('product' || i)::uuid, 'prod_' || i, (ARRAY['Billing', 'Analytics', 'Support'])[i],
       'The ' || (ARRAY['Billing', 'Analytics', 'Support'])[i] || ' product',
       md5('env-production')::uuid,
       timestamptz '2023-01-01' + i * interval '1 day', timestamptz '2024-01-01' + i * interval '1 day'
FROM generate_series(1, 3) i;

INSERT INTO billing.features
SELECT md5('feature' || i)::uuid, 'feat_' || i, 'Feature ' || i,
       (ARRAY['boolean', 'metered', 'config'])[1 + i % 3],
       CASE WHEN i % 3 = 1 THEN 'sum' END, CASE WHEN i % 3 = 1 THEN 'api_call' END,
       timestamptz '2023-02-01', timestamptz '2024-02-01'
FROM generate_series(1, 12) i;

INSERT INTO billing.plans
SELECT md5('plan' || i)::uuid, 'plan_' || (ARRAY['free', 'starter', 'growth', 'pro', 'enterprise', 'legacy'])[i],
       md5('product' || (1 + i % 3))::uuid, initcap((ARRAY['free', 'starter', 'growth', 'pro', 'enterprise', 'legacy'])[i]),
       CASE WHEN i = 6 THEN 'archived' ELSE 'published' END, 1 + i % 2,
       CASE WHEN i IN (2, 3) THEN 14 END,
       jsonb_build_array(jsonb_build_object('feature', 'feat_' || i, 'limit', i * 100)),
       timestamptz '2023-03-01', timestamptz '2024-03-01'
FROM generate_series(1, 6) i;

INSERT INTO billing.addons
SELECT md5('addon' || i)::uuid, 'addon_' || i, md5('product' || (1 + i % 3))::uuid,
       (ARRAY['Extra seats', 'Priority support', 'Data retention', 'SSO'])[i],
       CASE WHEN i = 1 THEN 500 END, timestamptz '2023-04-01', timestamptz '2024-04-01'
FROM generate_series(1, 4) i;

INSERT INTO billing.prices
SELECT md5('price-plan' || p || c || bp)::uuid, md5('plan' || p)::uuid, NULL, bp,
       CASE WHEN p = 5 THEN 'per_unit' ELSE 'flat_fee' END, c,
       round((ARRAY[0, 19, 49, 99, 499, 29])[p] * CASE bp WHEN 'annual' THEN 10 ELSE 1 END
             * CASE c WHEN 'EUR' THEN 0.92 WHEN 'GBP' THEN 0.79 ELSE 1 END, 2),
       NULL, timestamptz '2023-05-01', timestamptz '2024-05-01'
FROM generate_series(1, 6) p, unnest(ARRAY['USD', 'EUR', 'GBP']) c, unnest(ARRAY['monthly', 'annual']) bp
UNION ALL
SELECT md5('price-addon' || a)::uuid, NULL, md5('addon' || a)::uuid, 'monthly', 'per_unit', 'USD',
       (ARRAY[8, 99, 25, 150])[a], jsonb_build_array(jsonb_build_object('up_to', 10, 'amount', 8)),
       timestamptz '2023-05-01', timestamptz '2024-05-01'
FROM generate_series(1, 4) a;

INSERT INTO billing.customers
SELECT md5('customer' || i)::uuid, 'cus_' || i, 'customer' || i || '@example.com',
       CASE WHEN i % 17 = 0 THEN NULL ELSE 'Customer ' || i END,
       (ARRAY['USD', 'EUR', 'GBP'])[1 + i % 3], 'bill_' || (i::bigint * 7919 % 1000003),
       md5('env-production')::uuid, i % 5 <> 0,
       CASE WHEN i % 4 = 0 THEN jsonb_build_object('segment', (ARRAY['smb', 'mid', 'ent'])[1 + i % 3],
                                                   'seats', i % 50) END,
       timestamptz '2024-01-01' + (i % 365) * interval '1 day' + (i % 86400) * interval '1 second',
       timestamptz '2025-01-01' + (i % 300) * interval '1 day',
       CASE WHEN i % 50 = 0 THEN timestamptz '2025-11-01' + (i % 20) * interval '1 day' END
FROM generate_series(1, :customers) i;

INSERT INTO billing.subscriptions
SELECT md5('subscription' || s)::uuid, 'sub_' || s, md5('customer' || (1 + s % :customers))::uuid,
       md5('plan' || (1 + s % 5))::uuid,
       md5('price-plan' || (1 + s % 5) || (ARRAY['USD', 'EUR', 'GBP'])[1 + (1 + s % :customers) % 3]
           || CASE WHEN s % 4 = 0 THEN 'annual' ELSE 'monthly' END)::uuid,
       (ARRAY['active', 'active', 'active', 'trialing', 'canceled', 'past_due'])[1 + s % 6],
       CASE WHEN s % 4 = 0 THEN 'annual' ELSE 'monthly' END,
       date '2024-01-01' + (s % 600), CASE WHEN s % 6 = 4 THEN date '2025-10-01' + (s % 30) END,
       CASE WHEN s % 6 = 3 THEN date '2025-12-01' + (s % 14) END,
       timestamptz '2025-11-01' + (s % 28) * interval '1 day',
       timestamptz '2025-12-01' + (s % 28) * interval '1 day',
       CASE WHEN s % 6 = 4 THEN timestamptz '2025-09-15' + (s % 30) * interval '1 day' END,
       (ARRAY[0, 19, 49, 99, 499])[1 + s % 5], 1 + s % 3,
       CASE WHEN s % 10 = 0 THEN jsonb_build_object('source', 'sales', 'po', 'PO-' || s) END,
       timestamptz '2024-01-01' + (s % 600) * interval '1 day',
       timestamptz '2025-06-01' + (s % 180) * interval '1 day'
FROM generate_series(1, 3 * :customers) s;

INSERT INTO billing.subscription_addons
SELECT md5('subaddon' || s)::uuid, md5('subscription' || s)::uuid, md5('addon' || (1 + s % 4))::uuid,
       1 + s % 10, timestamptz '2024-06-01', timestamptz '2025-06-01'
FROM generate_series(1, 3 * :customers) s WHERE s % 7 = 0;

ANALYZE billing.customers, billing.subscriptions;
