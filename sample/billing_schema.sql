-- billing_schema.sql: a billing platform's catalog, customers and
-- subscriptions, shaped like a SaaS billing product's data, registered for
-- export under the three standard entity groups.
--
--   psql -f sample/billing_schema.sql && psql -v customers=1000 -f sample/generate.sql

CREATE SCHEMA IF NOT EXISTS billing;

CREATE TABLE billing.products (
  id uuid PRIMARY KEY, product_id text NOT NULL UNIQUE, name text NOT NULL,
  description text, environment_id uuid NOT NULL,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

CREATE TABLE billing.features (
  id uuid PRIMARY KEY, feature_id text NOT NULL UNIQUE, name text NOT NULL,
  feature_type text NOT NULL, meter_type text, unit text,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

CREATE TABLE billing.plans (
  id uuid PRIMARY KEY, plan_id text NOT NULL UNIQUE,
  product_id uuid NOT NULL REFERENCES billing.products, name text NOT NULL,
  status text NOT NULL, version integer NOT NULL, trial_days integer,
  entitlements jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

CREATE TABLE billing.addons (
  id uuid PRIMARY KEY, addon_id text NOT NULL UNIQUE,
  product_id uuid NOT NULL REFERENCES billing.products, name text NOT NULL,
  max_quantity integer, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

CREATE TABLE billing.prices (
  id uuid PRIMARY KEY, plan_id uuid REFERENCES billing.plans,
  addon_id uuid REFERENCES billing.addons, billing_period text NOT NULL,
  billing_model text NOT NULL, currency char(3) NOT NULL, amount numeric(12,2) NOT NULL,
  tiers jsonb, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
  CHECK ((plan_id IS NULL) <> (addon_id IS NULL)));

CREATE TABLE billing.customers (
  id uuid PRIMARY KEY, customer_id text NOT NULL UNIQUE, email text NOT NULL,
  name text, billing_currency char(3), billing_id text, environment_id uuid NOT NULL,
  has_active_subscription boolean NOT NULL DEFAULT false,
  additional_meta_data jsonb, created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL, deleted_at timestamptz);

CREATE TABLE billing.subscriptions (
  id uuid PRIMARY KEY, subscription_id text NOT NULL UNIQUE,
  customer_id uuid NOT NULL REFERENCES billing.customers,
  plan_id uuid NOT NULL REFERENCES billing.plans,
  price_id uuid REFERENCES billing.prices, status text NOT NULL,
  billing_period text NOT NULL, start_date date NOT NULL, end_date date,
  trial_end_date date, current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL, cancellation_date timestamptz,
  unit_amount numeric(12,2) NOT NULL, quantity integer NOT NULL DEFAULT 1,
  metadata jsonb, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

CREATE TABLE billing.subscription_addons (
  id uuid PRIMARY KEY, subscription_id uuid NOT NULL REFERENCES billing.subscriptions,
  addon_id uuid NOT NULL REFERENCES billing.addons, quantity integer NOT NULL,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);

SELECT iceberg_export.register_entity('billing.products', 'product_catalog', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.features', 'product_catalog', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.plans', 'product_catalog', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.addons', 'product_catalog', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.prices', 'product_catalog', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.customers', 'customers', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.subscriptions', 'subscriptions', updated_at_column => 'updated_at'),
       iceberg_export.register_entity('billing.subscription_addons', 'subscriptions', updated_at_column => 'updated_at');
