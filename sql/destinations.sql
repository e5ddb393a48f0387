-- destinations: creating, changing and dropping destinations; the entity
-- registry; who may do what; secrets stay hidden.
CREATE EXTENSION iceberg_export;
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- a local destination with every default: all entity groups selected
SELECT iceberg_export.create_destination('lake');
SELECT name, kind, options, secrets, entity_groups, retention_window_days, enabled
FROM iceberg_export.destinations_view;

-- options are checked per kind; an unknown one lists the valid ones
SELECT iceberg_export.create_destination('bad', options => '{"bucket": "x"}');
SELECT iceberg_export.create_destination('bad', options => '{"warehouse": "relative/dir"}');
SELECT iceberg_export.create_destination('bad', options => '{"warehouse": 7}');
SELECT iceberg_export.create_destination('bad', options => '{"compression": "lz4"}');
SELECT iceberg_export.create_destination('bad', kind => 'ftp');
SELECT iceberg_export.create_destination('Bad Name');
SELECT iceberg_export.create_destination('bad', entity_groups => ARRAY['invoices']);
SELECT iceberg_export.create_destination('bad', retention_window_days => -1);
SELECT iceberg_export.create_destination('lake');
SELECT count(*) AS destinations FROM iceberg_export.destinations;

-- alter merges options (null removes a key) and narrows the groups
SELECT iceberg_export.alter_destination('lake',
         options => '{"warehouse": "/srv/warehouse", "namespace": "billing_v2"}',
         entity_groups => ARRAY['customers', 'subscriptions'],
         retention_window_days => 30);
SELECT options, entity_groups, retention_window_days FROM iceberg_export.destinations_view;
SELECT iceberg_export.alter_destination('lake', options => '{"namespace": null}',
                                        all_entity_groups => true);
SELECT options, entity_groups FROM iceberg_export.destinations_view;
SELECT iceberg_export.alter_destination('lake', options => '{"colour": "blue"}');
SELECT iceberg_export.alter_destination('nowhere', enabled => false);

-- secrets are stored apart and shown masked (a secret option made up for
-- this test: local destinations have none)
BEGIN;
INSERT INTO iceberg_export.destination_options (kind, option, is_secret, description)
VALUES ('local', 'token', true, 'test secret');
SELECT iceberg_export.alter_destination('lake', secrets => '{"token": "s3cr3t-value"}');
SELECT secrets FROM iceberg_export.destinations_view;
SELECT position('s3cr3t' IN d::text) = 0 AS no_secret_in_view
FROM iceberg_export.destinations_view d;
SELECT secrets ->> 'token' AS stored FROM iceberg_export.destination_secrets;
-- a null removes a secret
SELECT iceberg_export.alter_destination('lake', secrets => '{"token": null}');
SELECT secrets FROM iceberg_export.destinations_view;
SELECT iceberg_export.alter_destination('lake', secrets => '{"password": "hunter2"}');
ROLLBACK;

-- the entity registry
CREATE TABLE regress_customers (id uuid PRIMARY KEY, email text, updated_at timestamptz);
CREATE VIEW regress_plans AS SELECT 1 AS plan_id, 'pro'::text AS name;
SELECT iceberg_export.register_entity('regress_customers', 'customers',
                                      updated_at_column => 'updated_at');
SELECT iceberg_export.register_entity('regress_plans', 'product_catalog', 'plans',
                                      primary_key => ARRAY['plan_id']::name[]);
SELECT iceberg_export.register_entity('regress_plans', 'product_catalog', 'plans2');
SELECT iceberg_export.register_entity('regress_customers', 'customers');
SELECT iceberg_export.register_entity('regress_customers', 'invoices', 'c2');
SELECT iceberg_export.register_entity('regress_customers', 'customers', 'c2',
                                      updated_at_column => 'modified');
SELECT iceberg_export.create_entity_group('invoices', 'invoices and credit notes');
SELECT iceberg_export.create_entity_group('invoices');
SELECT target_table, entity_group, source_schema, source_name, primary_key, updated_at_column
FROM iceberg_export.entities ORDER BY target_table;
SELECT iceberg_export.unregister_entity('plans');
SELECT iceberg_export.unregister_entity('plans');

-- roles: only admins manage, monitors read, nobody but the owner reads secrets
CREATE ROLE regress_ie_admin LOGIN IN ROLE iceberg_export_admin;
CREATE ROLE regress_ie_monitor LOGIN IN ROLE iceberg_export_monitor;
CREATE ROLE regress_ie_nobody LOGIN;
SET ROLE regress_ie_nobody;
SELECT iceberg_export.create_destination('lake2');
SELECT count(*) FROM iceberg_export.destinations_view;
RESET ROLE;
SET ROLE regress_ie_monitor;
SELECT name FROM iceberg_export.destinations_view;
SELECT count(*) FROM iceberg_export.sync_history;
SELECT iceberg_export.drop_destination('lake');
SELECT * FROM iceberg_export.destination_secrets;
RESET ROLE;
SET ROLE regress_ie_admin;
SELECT iceberg_export.create_destination('lake2', entity_groups => ARRAY['customers']);
SELECT * FROM iceberg_export.destination_secrets;
SELECT iceberg_export.drop_destination('lake2');
RESET ROLE;

SELECT iceberg_export.drop_destination('lake');
SELECT count(*) AS secrets_left FROM iceberg_export.destination_secrets;

DROP EXTENSION iceberg_export;
DROP TABLE regress_customers;
DROP VIEW regress_plans;
DROP ROLE regress_ie_admin, regress_ie_monitor, regress_ie_nobody;
