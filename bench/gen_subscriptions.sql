-- gen_subscriptions.sql: creates bench_subscriptions with :rows rows of
-- subscription-like data (uuid, text, timestamptz, numeric(12,2), jsonb,
-- boolean, bigint), deterministic for a given row count.
--
--   psql -v rows=100000 -f bench/gen_subscriptions.sql

\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 100000
\endif

SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_subscriptions;
CREATE TABLE bench_subscriptions (
  id                    uuid PRIMARY KEY,
  customer_id           uuid NOT NULL,
  price_id              uuid NOT NULL,
  status                text NOT NULL,          -- 6 values
  plan_name             text NOT NULL,          -- 12 values
  currency              text NOT NULL,          -- 4 values
  customer_email        text NOT NULL,          -- unique
  description           text,                   -- free text, often NULL
  created_at            timestamptz NOT NULL,
  current_period_start  timestamptz NOT NULL,
  current_period_end    timestamptz NOT NULL,
  canceled_at           timestamptz,
  trial_end             timestamptz,
  amount                numeric(12,2) NOT NULL,
  discount_amount       numeric(12,2) NOT NULL,
  tax_amount            numeric(12,2),
  metadata              jsonb NOT NULL,
  cancel_at_period_end  boolean NOT NULL,
  livemode              boolean NOT NULL,
  auto_renew            boolean,
  quantity              bigint NOT NULL,
  billing_cycle_anchor  bigint NOT NULL,
  version               bigint NOT NULL
);

SELECT setseed(0.4242) AS seed \gset

INSERT INTO bench_subscriptions
SELECT md5('sub' || i)::uuid,
       md5('cus' || (i % (:rows / 3 + 1)))::uuid,
       md5('price' || (i % 40))::uuid,
       CASE WHEN r1 < 0.70 THEN 'active' WHEN r1 < 0.80 THEN 'trialing' WHEN r1 < 0.88 THEN 'canceled'
            WHEN r1 < 0.94 THEN 'past_due' WHEN r1 < 0.98 THEN 'incomplete' ELSE 'paused' END,
       (ARRAY['Starter', 'Starter', 'Growth', 'Growth', 'Growth', 'Pro', 'Pro', 'Business',
              'Enterprise', 'Team', 'Basic', 'Premium'])[1 + (i % 12)]
         || CASE WHEN i % 3 = 0 THEN ' Annual' ELSE ' Monthly' END,
       (ARRAY['usd', 'usd', 'usd', 'eur', 'gbp', 'cad'])[1 + (i % 6)],
       'customer' || (i % (:rows / 3 + 1)) || '@' || (ARRAY['example.com', 'mail.test', 'acme.io', 'bücher.de'])[1 + i % 4],
       CASE WHEN r2 < 0.6 THEN NULL
            ELSE 'Subscription for ' || (ARRAY['team', 'workspace', 'org', 'projet café', 'チーム'])[1 + i % 5]
                 || ' #' || i || repeat(' note', (i % 7)) END,
       created,
       created + (i % 12) * interval '1 month',
       created + (i % 12 + 1) * interval '1 month',
       CASE WHEN r1 >= 0.80 AND r1 < 0.88 THEN created + (r2 * 400) * interval '1 day' END,
       CASE WHEN r1 >= 0.70 AND r1 < 0.80 THEN created + interval '14 days' END,
       round((ARRAY[9, 19, 29, 49, 99, 199, 499, 999, 12.5, 0, 1499.99, 79])[1 + (i % 12)] * (1 + (i % 5)), 2),
       CASE WHEN r3 < 0.8 THEN 0 ELSE round((r3 * 50)::numeric, 2) END,
       CASE WHEN i % 6 = 4 THEN NULL ELSE round((r2 * 120)::numeric, 2) END,
       jsonb_build_object(
         'source', (ARRAY['web', 'sales', 'api', 'partner'])[1 + i % 4],
         'seats', 1 + i % 250,
         'campaign', CASE WHEN i % 5 = 0 THEN 'spring-' || (2020 + i % 5) END,
         'features', (ARRAY['["sso", "audit"]', '["api"]', '["sso", "api", "sla"]', '[]']::jsonb[])[1 + i % 4],
         'external_ref', 'ext_' || substr(md5(i::text), 1, 12)),
       r3 < 0.1,
       i % 50 <> 0,
       CASE WHEN i % 9 = 0 THEN NULL ELSE i % 4 <> 0 END,
       1 + (i % 250),
       extract(epoch FROM created)::bigint,
       1 + (i % 17)
  FROM (SELECT i, random() AS r1, random() AS r2, random() AS r3,
               timestamptz '2019-01-01 00:00:00+00' + (i::float8 / :rows) * interval '5 years'
                 + (i % 86400) * interval '1 second' AS created
          FROM generate_series(1, :rows) AS i) s;

ANALYZE bench_subscriptions;
