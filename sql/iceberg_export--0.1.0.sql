/* iceberg_export--0.1.0.sql: install script of iceberg_export 0.1.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION iceberg_export" to load this file. \quit

-- The extension owns its schema, so DROP EXTENSION removes it too.
CREATE SCHEMA iceberg_export;

/* ---------------------------------------------------------------------
 * general
 * --------------------------------------------------------------------- */

CREATE FUNCTION iceberg_export.version()
RETURNS text
LANGUAGE C STRICT STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'version';

COMMENT ON FUNCTION iceberg_export.version()
IS 'version of the loaded iceberg_export library';

/* ---------------------------------------------------------------------
 * write_parquet (owned by the sync/iceberg engineer; declarations go here)
 * --------------------------------------------------------------------- */

-- BEGIN write_parquet
CREATE FUNCTION iceberg_export.write_parquet(
    query text,
    path text,
    compression text DEFAULT 'zstd',
    row_group_bytes bigint DEFAULT 134217728)
RETURNS TABLE (rows bigint, bytes bigint)
LANGUAGE C VOLATILE PARALLEL UNSAFE
ROWS 1
AS 'MODULE_PATHNAME', 'write_parquet';

COMMENT ON FUNCTION iceberg_export.write_parquet(text, text, text, bigint)
IS 'run a query and write its result to a Parquet file on the server (superuser or pg_write_server_files)';
-- END write_parquet

/* ---------------------------------------------------------------------
 * roles (DESIGN §7)
 *
 * iceberg_export_admin manages destinations and entities; it never reads
 * secrets.  iceberg_export_monitor reads history.  Roles are cluster-wide
 * and outlive the extension, so they are created only when missing.
 * --------------------------------------------------------------------- */

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'iceberg_export_admin') THEN
    CREATE ROLE iceberg_export_admin NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'iceberg_export_monitor') THEN
    CREATE ROLE iceberg_export_monitor NOLOGIN;
  END IF;
END
$$;

GRANT USAGE ON SCHEMA iceberg_export TO iceberg_export_admin, iceberg_export_monitor;

/* ---------------------------------------------------------------------
 * destinations
 *
 * One row per place data is exported to.  Options are plain settings,
 * validated against destination_options for the destination's kind;
 * secrets live in destination_secrets, which only the extension owner can
 * read, and are shown masked.
 * --------------------------------------------------------------------- */

CREATE TABLE iceberg_export.destination_options (
    kind        text NOT NULL,
    option      text NOT NULL,
    required    boolean NOT NULL DEFAULT false,
    is_secret   boolean NOT NULL DEFAULT false,
    default_value text,
    description text NOT NULL,
    PRIMARY KEY (kind, option)
);

COMMENT ON TABLE iceberg_export.destination_options
IS 'the options (and secrets) each destination kind accepts';

INSERT INTO iceberg_export.destination_options
    (kind, option, required, is_secret, default_value, description) VALUES
  ('local', 'warehouse', false, false, NULL,
   'absolute directory of the warehouse; default: iceberg_warehouse in the data directory'),
  ('local', 'namespace', false, false, 'billing',
   'Iceberg namespace that holds the exported tables'),
  ('local', 'catalog_name', false, false, NULL,
   'catalog_name in iceberg_tables; default: the destination name'),
  ('local', 'compression', false, false, 'zstd',
   'Parquet codec of data files: zstd, snappy, gzip or none');

CREATE TABLE iceberg_export.destinations (
    name        text PRIMARY KEY
                CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$'),
    kind        text NOT NULL,
    options     jsonb NOT NULL DEFAULT '{}',
    entity_groups text[],                       -- NULL: every group
    retention_window_days integer NOT NULL DEFAULT 7
                CHECK (retention_window_days >= 0),
    sync_interval interval,                     -- NULL: not scheduled
    enabled     boolean NOT NULL DEFAULT true,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE iceberg_export.destination_secrets (
    destination text PRIMARY KEY
                REFERENCES iceberg_export.destinations ON DELETE CASCADE,
    secrets     jsonb NOT NULL DEFAULT '{}'
);

REVOKE ALL ON iceberg_export.destination_options, iceberg_export.destinations,
              iceberg_export.destination_secrets FROM PUBLIC;
GRANT SELECT ON iceberg_export.destination_options
    TO iceberg_export_admin, iceberg_export_monitor;

/* ---------------------------------------------------------------------
 * entity registry
 *
 * Every exported table belongs to an entity group and maps one source
 * relation (table or view) to a target table name.  Sources are kept by
 * name and resolved at sync time, so a dropped source is a clear error
 * then, not a dangling oid.
 * --------------------------------------------------------------------- */

CREATE TABLE iceberg_export.entity_groups (
    name        text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_]{0,62}$'),
    description text
);

INSERT INTO iceberg_export.entity_groups VALUES
  ('product_catalog', 'products, plans, add-ons, features and prices'),
  ('customers', 'customers'),
  ('subscriptions', 'subscriptions and their add-ons');

CREATE TABLE iceberg_export.entities (
    target_table  text PRIMARY KEY CHECK (target_table ~ '^[a-z][a-z0-9_]{0,62}$'),
    entity_group  text NOT NULL REFERENCES iceberg_export.entity_groups,
    source_schema name NOT NULL,
    source_name   name NOT NULL,
    primary_key   name[] NOT NULL CHECK (cardinality(primary_key) > 0),
    updated_at_column name,
    registered_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source_schema, source_name)
);

REVOKE ALL ON iceberg_export.entity_groups, iceberg_export.entities FROM PUBLIC;
GRANT SELECT ON iceberg_export.entity_groups, iceberg_export.entities
    TO iceberg_export_admin, iceberg_export_monitor;

/* ---------------------------------------------------------------------
 * the local catalog
 *
 * Laid out like the Iceberg JDBC / SQL catalog (Java JdbcCatalog,
 * pyiceberg SqlCatalog), so Spark, Trino and pyiceberg can attach to this
 * database directly (with currentSchema=iceberg_export).
 * --------------------------------------------------------------------- */

CREATE TABLE iceberg_export.iceberg_tables (
    catalog_name     varchar(255) NOT NULL,
    table_namespace  varchar(255) NOT NULL,
    table_name       varchar(255) NOT NULL,
    metadata_location varchar(1000),
    previous_metadata_location varchar(1000),
    iceberg_type     varchar(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name)
);

CREATE TABLE iceberg_export.iceberg_namespace_properties (
    catalog_name     varchar(255) NOT NULL,
    namespace        varchar(255) NOT NULL,
    property_key     varchar(255) NOT NULL,
    property_value   varchar(1000),
    PRIMARY KEY (catalog_name, namespace, property_key)
);

REVOKE ALL ON iceberg_export.iceberg_tables,
              iceberg_export.iceberg_namespace_properties FROM PUBLIC;
GRANT SELECT ON iceberg_export.iceberg_tables,
                iceberg_export.iceberg_namespace_properties
    TO iceberg_export_admin, iceberg_export_monitor;

/* ---------------------------------------------------------------------
 * sync history
 *
 * One row per run and one per table of a run, written in their own
 * transactions so that a failed run keeps its rows.
 * --------------------------------------------------------------------- */

CREATE TABLE iceberg_export.sync_runs (
    run_id       uuid PRIMARY KEY,
    destination  text NOT NULL,
    trigger      text NOT NULL CHECK (trigger IN ('manual', 'schedule', 'cron')),
    status       text NOT NULL
                 CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    full_refresh boolean NOT NULL DEFAULT false,
    run_by       name NOT NULL DEFAULT current_user,
    started_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at  timestamptz,
    pid          integer,                       -- the worker, while running
    error        text
);

CREATE INDEX ON iceberg_export.sync_runs (destination, started_at);
CREATE INDEX ON iceberg_export.sync_runs (started_at);

CREATE TABLE iceberg_export.sync_run_tables (
    run_id       uuid NOT NULL REFERENCES iceberg_export.sync_runs ON DELETE CASCADE,
    target_table text NOT NULL,
    rows         bigint NOT NULL DEFAULT 0,
    data_files   integer NOT NULL DEFAULT 0,
    bytes        bigint NOT NULL DEFAULT 0,
    snapshot_id  bigint,
    PRIMARY KEY (run_id, target_table)
);

CREATE VIEW iceberg_export.sync_history AS
SELECT r.run_id, r.destination, r.trigger, r.status, r.full_refresh, r.run_by,
       r.started_at, r.finished_at, r.finished_at - r.started_at AS duration,
       coalesce(sum(t.rows), 0)::bigint AS rows,
       coalesce(sum(t.data_files), 0)::bigint AS data_files,
       coalesce(sum(t.bytes), 0)::bigint AS bytes,
       coalesce(jsonb_object_agg(t.target_table,
                                 jsonb_build_object('rows', t.rows,
                                                    'data_files', t.data_files,
                                                    'bytes', t.bytes,
                                                    'snapshot_id', t.snapshot_id))
                FILTER (WHERE t.target_table IS NOT NULL), '{}') AS tables,
       r.error
FROM iceberg_export.sync_runs r
LEFT JOIN iceberg_export.sync_run_tables t USING (run_id)
GROUP BY r.run_id;

REVOKE ALL ON iceberg_export.sync_runs, iceberg_export.sync_run_tables,
              iceberg_export.sync_history FROM PUBLIC;
GRANT SELECT ON iceberg_export.sync_runs, iceberg_export.sync_run_tables,
                iceberg_export.sync_history
    TO iceberg_export_admin, iceberg_export_monitor;

/* ---------------------------------------------------------------------
 * managing destinations and entities
 *
 * The management functions run as the caller, who needs
 * iceberg_export_admin (or superuser).  Secrets are written only through
 * _store_secrets, which runs as the extension owner; nobody else can read
 * destination_secrets, and destinations_view shows secrets masked.
 * --------------------------------------------------------------------- */

GRANT SELECT, INSERT, UPDATE, DELETE ON iceberg_export.destinations TO iceberg_export_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON iceberg_export.entity_groups,
                                        iceberg_export.entities TO iceberg_export_admin;

-- _require_admin raises an error unless the current role may manage destinations
CREATE FUNCTION iceberg_export._require_admin()
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT pg_has_role(current_user, 'iceberg_export_admin', 'MEMBER')
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RAISE EXCEPTION 'permission denied to manage iceberg_export destinations and entities'
      USING ERRCODE = 'insufficient_privilege',
            HINT = 'Grant the iceberg_export_admin role to the user.';
  END IF;
END
$$;

-- _check_options validates option (or secret) names and values for a kind
CREATE FUNCTION iceberg_export._check_options(p_kind text, p_values jsonb, p_secret boolean)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  what text := CASE WHEN p_secret THEN 'secret' ELSE 'option' END;
  valid text;
  key text;
BEGIN
  IF p_values IS NULL OR jsonb_typeof(p_values) <> 'object' THEN
    RAISE EXCEPTION 'destination %s must be a JSON object', what
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT coalesce(string_agg(option, ', ' ORDER BY option), '(none)') INTO valid
  FROM iceberg_export.destination_options
  WHERE kind = p_kind AND is_secret = p_secret;
  FOR key IN SELECT jsonb_object_keys(p_values) LOOP
    IF NOT EXISTS (SELECT FROM iceberg_export.destination_options
                   WHERE kind = p_kind AND option = key AND is_secret = p_secret) THEN
      RAISE EXCEPTION 'unknown % "%" for a % destination', what, key, p_kind
        USING ERRCODE = 'invalid_parameter_value',
              HINT = format('Valid %ss for a %s destination are: %s.', what, p_kind, valid);
    END IF;
    IF jsonb_typeof(p_values -> key) <> 'string' THEN
      RAISE EXCEPTION 'value of % "%" must be a string', what, key
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = format('It is a JSON %s.', jsonb_typeof(p_values -> key));
    END IF;
  END LOOP;
  IF NOT p_secret THEN
    FOR key IN SELECT option FROM iceberg_export.destination_options
               WHERE kind = p_kind AND required AND NOT is_secret
                 AND NOT p_values ? option LOOP
      RAISE EXCEPTION 'missing option "%" for a % destination', key, p_kind
        USING ERRCODE = 'invalid_parameter_value';
    END LOOP;
  END IF;

  -- what a kind can check without any network
  IF p_kind = 'local' AND NOT p_secret THEN
    IF p_values ? 'warehouse' AND p_values ->> 'warehouse' !~ '^/' THEN
      RAISE EXCEPTION 'invalid value for option "warehouse": "%"', p_values ->> 'warehouse'
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'The warehouse of a local destination is an absolute directory on the database server.';
    END IF;
    IF p_values ? 'namespace' AND p_values ->> 'namespace' !~ '^[a-z][a-z0-9_]{0,62}$' THEN
      RAISE EXCEPTION 'invalid value for option "namespace": "%"', p_values ->> 'namespace'
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'Namespaces are 1 to 63 characters of a-z, 0-9 and _, starting with a letter.';
    END IF;
    IF p_values ? 'compression'
       AND p_values ->> 'compression' NOT IN ('zstd', 'snappy', 'gzip', 'none') THEN
      RAISE EXCEPTION 'invalid value for option "compression": "%"', p_values ->> 'compression'
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Valid compressions are zstd, snappy, gzip and none.';
    END IF;
  END IF;
END
$$;

-- _check_groups validates a destination's selection of entity groups
CREATE FUNCTION iceberg_export._check_groups(p_groups text[])
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  g text;
BEGIN
  IF p_groups IS NULL THEN
    RETURN;
  END IF;
  FOREACH g IN ARRAY p_groups LOOP
    IF g IS NULL OR NOT EXISTS (SELECT FROM iceberg_export.entity_groups WHERE name = g) THEN
      RAISE EXCEPTION 'unknown entity group "%"', g
        USING ERRCODE = 'invalid_parameter_value',
              HINT = (SELECT 'Entity groups are: ' || string_agg(name, ', ' ORDER BY name) || '.'
                      FROM iceberg_export.entity_groups);
    END IF;
  END LOOP;
END
$$;

-- _check_interval validates a launcher schedule
CREATE FUNCTION iceberg_export._check_interval(p_interval interval)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF p_interval IS NOT NULL AND p_interval < interval '1 second' THEN
    RAISE EXCEPTION 'sync_interval must be at least 1 second'
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'The launcher looks for due destinations once a second; NULL means not scheduled.';
  END IF;
END
$$;

-- _store_secrets merges secrets into a destination's (a JSON null removes a key)
CREATE FUNCTION iceberg_export._store_secrets(p_destination text, p_secrets jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  merged jsonb;
  kind text;
BEGIN
  SELECT d.kind INTO kind FROM iceberg_export.destinations d WHERE d.name = p_destination;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'destination "%" does not exist', p_destination
      USING ERRCODE = 'undefined_object';
  END IF;
  SELECT jsonb_strip_nulls(coalesce(s.secrets, '{}') || coalesce(p_secrets, '{}')) INTO merged
  FROM (SELECT) dummy
  LEFT JOIN iceberg_export.destination_secrets s ON s.destination = p_destination;
  PERFORM iceberg_export._check_options(kind, merged, true);
  INSERT INTO iceberg_export.destination_secrets AS s (destination, secrets)
  VALUES (p_destination, merged)
  ON CONFLICT (destination) DO UPDATE SET secrets = excluded.secrets;
END
$$;

CREATE FUNCTION iceberg_export.create_destination(
    name text,
    kind text DEFAULT 'local',
    options jsonb DEFAULT '{}',
    secrets jsonb DEFAULT '{}',
    entity_groups text[] DEFAULT NULL,
    retention_window_days integer DEFAULT 7,
    enabled boolean DEFAULT true,
    sync_interval interval DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM iceberg_export._require_admin();
  IF name IS NULL OR name !~ '^[a-z][a-z0-9_]{0,62}$' THEN
    RAISE EXCEPTION 'invalid destination name "%"', name
      USING ERRCODE = 'invalid_name',
            DETAIL = 'Destination names are 1 to 63 characters of a-z, 0-9 and _, starting with a letter.';
  END IF;
  IF kind IS NULL OR NOT EXISTS (SELECT FROM iceberg_export.destination_options o
                                 WHERE o.kind = create_destination.kind) THEN
    RAISE EXCEPTION 'unknown destination kind "%"', kind
      USING ERRCODE = 'invalid_parameter_value',
            HINT = (SELECT 'Supported kinds are: ' || string_agg(DISTINCT o.kind, ', ') || '.'
                    FROM iceberg_export.destination_options o);
  END IF;
  IF retention_window_days IS NULL OR retention_window_days < 0 THEN
    RAISE EXCEPTION 'retention_window_days must be 0 or more'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM iceberg_export._check_options(kind, options, false);
  PERFORM iceberg_export._check_options(kind, coalesce(secrets, '{}'), true);
  PERFORM iceberg_export._check_groups(entity_groups);
  IF EXISTS (SELECT FROM iceberg_export.destinations d WHERE d.name = create_destination.name) THEN
    RAISE EXCEPTION 'destination "%" already exists', name
      USING ERRCODE = 'duplicate_object',
            HINT = 'Use iceberg_export.alter_destination to change it.';
  END IF;
  PERFORM iceberg_export._check_interval(sync_interval);
  INSERT INTO iceberg_export.destinations
      (name, kind, options, entity_groups, retention_window_days, enabled, sync_interval)
  VALUES (name, kind, options, entity_groups, retention_window_days, coalesce(enabled, true),
          sync_interval);
  PERFORM iceberg_export._store_secrets(name, coalesce(secrets, '{}'));
END
$$;

COMMENT ON FUNCTION iceberg_export.create_destination(text, text, jsonb, jsonb, text[], integer, boolean, interval)
IS 'create a destination; options and secrets are checked against destination_options';

CREATE FUNCTION iceberg_export.alter_destination(
    name text,
    options jsonb DEFAULT NULL,
    secrets jsonb DEFAULT NULL,
    entity_groups text[] DEFAULT NULL,
    retention_window_days integer DEFAULT NULL,
    enabled boolean DEFAULT NULL,
    all_entity_groups boolean DEFAULT false,
    sync_interval interval DEFAULT NULL,
    unschedule boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  d iceberg_export.destinations;
  new_options jsonb;
BEGIN
  PERFORM iceberg_export._require_admin();
  SELECT * INTO d FROM iceberg_export.destinations x WHERE x.name = alter_destination.name
  FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'destination "%" does not exist', name
      USING ERRCODE = 'undefined_object';
  END IF;
  -- options merge; a JSON null removes a key
  new_options := jsonb_strip_nulls(d.options || coalesce(options, '{}'));
  PERFORM iceberg_export._check_options(d.kind, new_options, false);
  PERFORM iceberg_export._check_groups(entity_groups);
  PERFORM iceberg_export._check_interval(sync_interval);
  IF retention_window_days < 0 THEN
    RAISE EXCEPTION 'retention_window_days must be 0 or more'
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE iceberg_export.destinations x SET
    options = new_options,
    entity_groups = CASE WHEN all_entity_groups THEN NULL
                         ELSE coalesce(alter_destination.entity_groups, x.entity_groups) END,
    retention_window_days = coalesce(alter_destination.retention_window_days,
                                     x.retention_window_days),
    enabled = coalesce(alter_destination.enabled, x.enabled),
    sync_interval = CASE WHEN unschedule THEN NULL
                         ELSE coalesce(alter_destination.sync_interval, x.sync_interval) END,
    updated_at = now()
  WHERE x.name = d.name;
  IF secrets IS NOT NULL THEN
    PERFORM iceberg_export._store_secrets(d.name, secrets);
  END IF;
END
$$;

COMMENT ON FUNCTION iceberg_export.alter_destination(text, jsonb, jsonb, text[], integer, boolean, boolean, interval, boolean)
IS 'change a destination: options and secrets merge (a JSON null removes a key); all_entity_groups selects every group again; unschedule clears sync_interval';

CREATE FUNCTION iceberg_export.drop_destination(name text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM iceberg_export._require_admin();
  DELETE FROM iceberg_export.destinations d WHERE d.name = drop_destination.name;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'destination "%" does not exist', name
      USING ERRCODE = 'undefined_object';
  END IF;
END
$$;

COMMENT ON FUNCTION iceberg_export.drop_destination(text)
IS 'drop a destination (and its secrets); exported tables and history stay';

-- destinations with their secrets masked; the view reads as its owner
CREATE VIEW iceberg_export.destinations_view AS
SELECT d.name, d.kind, d.options,
       coalesce((SELECT jsonb_object_agg(k, '********')
                 FROM jsonb_object_keys(s.secrets) k), '{}') AS secrets,
       d.entity_groups, d.retention_window_days, d.sync_interval, d.enabled,
       d.created_at, d.updated_at
FROM iceberg_export.destinations d
LEFT JOIN iceberg_export.destination_secrets s ON s.destination = d.name;

REVOKE ALL ON iceberg_export.destinations_view FROM PUBLIC;
GRANT SELECT ON iceberg_export.destinations_view TO iceberg_export_admin, iceberg_export_monitor;
REVOKE ALL ON FUNCTION iceberg_export._store_secrets(text, jsonb),
                       iceberg_export.create_destination(text, text, jsonb, jsonb, text[], integer, boolean, interval),
                       iceberg_export.alter_destination(text, jsonb, jsonb, text[], integer, boolean, boolean, interval, boolean),
                       iceberg_export.drop_destination(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export._store_secrets(text, jsonb),
                          iceberg_export.create_destination(text, text, jsonb, jsonb, text[], integer, boolean, interval),
                          iceberg_export.alter_destination(text, jsonb, jsonb, text[], integer, boolean, boolean, interval, boolean),
                          iceberg_export.drop_destination(text)
    TO iceberg_export_admin;

/* entity groups and the registry */

CREATE FUNCTION iceberg_export.create_entity_group(name text, description text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM iceberg_export._require_admin();
  IF name IS NULL OR name !~ '^[a-z][a-z0-9_]{0,62}$' THEN
    RAISE EXCEPTION 'invalid entity group name "%"', name
      USING ERRCODE = 'invalid_name',
            DETAIL = 'Entity group names are 1 to 63 characters of a-z, 0-9 and _, starting with a letter.';
  END IF;
  INSERT INTO iceberg_export.entity_groups VALUES (name, description);
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'entity group "%" already exists', name USING ERRCODE = 'duplicate_object';
END
$$;

-- register_entity exports a table or view under an entity group
CREATE FUNCTION iceberg_export.register_entity(
    source regclass,
    entity_group text,
    target_table text DEFAULT NULL,
    primary_key name[] DEFAULT NULL,
    updated_at_column name DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  rel record;
  target text;
  pk name[];
  col name;
BEGIN
  PERFORM iceberg_export._require_admin();
  SELECT c.oid, n.nspname, c.relname, c.relkind INTO rel
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = source;
  IF rel.relkind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
    RAISE EXCEPTION '"%" is not a table or view', source
      USING ERRCODE = 'wrong_object_type';
  END IF;
  IF NOT EXISTS (SELECT FROM iceberg_export.entity_groups g WHERE g.name = entity_group) THEN
    PERFORM iceberg_export._check_groups(ARRAY[entity_group]);
  END IF;
  target := coalesce(target_table, rel.relname);
  IF target !~ '^[a-z][a-z0-9_]{0,62}$' THEN
    RAISE EXCEPTION 'invalid target table name "%"', target
      USING ERRCODE = 'invalid_name',
            DETAIL = 'Target table names are 1 to 63 characters of a-z, 0-9 and _, starting with a letter.',
            HINT = 'Give target_table.';
  END IF;

  -- the primary key: given, or the table's own
  pk := primary_key;
  IF pk IS NULL THEN
    SELECT array_agg(a.attname ORDER BY k.ord) INTO pk
    FROM pg_index i
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = source AND i.indisprimary;
  END IF;
  IF pk IS NULL OR cardinality(pk) = 0 THEN
    RAISE EXCEPTION '"%" has no primary key', source
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Give primary_key, the columns that identify a row.';
  END IF;
  FOREACH col IN ARRAY pk LOOP
    IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = col
                   AND a.attnum > 0 AND NOT a.attisdropped) THEN
      RAISE EXCEPTION 'column "%" of the primary key does not exist in "%"', col, source
        USING ERRCODE = 'undefined_column';
    END IF;
  END LOOP;
  IF updated_at_column IS NOT NULL AND NOT EXISTS (
       SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = updated_at_column
       AND a.attnum > 0 AND NOT a.attisdropped) THEN
    RAISE EXCEPTION 'column "%" does not exist in "%"', updated_at_column, source
      USING ERRCODE = 'undefined_column';
  END IF;

  INSERT INTO iceberg_export.entities
      (target_table, entity_group, source_schema, source_name, primary_key, updated_at_column)
  VALUES (target, entity_group, rel.nspname, rel.relname, pk, updated_at_column);
  RETURN target;
EXCEPTION WHEN unique_violation THEN
  RAISE EXCEPTION 'target table "%" or source "%" is already registered', target, source
    USING ERRCODE = 'duplicate_object',
          HINT = 'Use iceberg_export.unregister_entity first, or give another target_table.';
END
$$;

COMMENT ON FUNCTION iceberg_export.register_entity(regclass, text, text, name[], name)
IS 'export a table or view under an entity group; returns the target table name';

CREATE FUNCTION iceberg_export.unregister_entity(target_table text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM iceberg_export._require_admin();
  DELETE FROM iceberg_export.entities e WHERE e.target_table = unregister_entity.target_table;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'target table "%" is not registered', target_table
      USING ERRCODE = 'undefined_object';
  END IF;
END
$$;

REVOKE ALL ON FUNCTION iceberg_export.create_entity_group(text, text),
                       iceberg_export.register_entity(regclass, text, text, name[], name),
                       iceberg_export.unregister_entity(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export.create_entity_group(text, text),
                          iceberg_export.register_entity(regclass, text, text, name[], name),
                          iceberg_export.unregister_entity(text)
    TO iceberg_export_admin;

/* ---------------------------------------------------------------------
 * syncing
 * --------------------------------------------------------------------- */

CREATE FUNCTION iceberg_export.iceberg_sync(
    destination text DEFAULT NULL,
    full_refresh boolean DEFAULT false)
RETURNS TABLE (run_id uuid, destination text, status text, tables integer,
               rows bigint, data_files bigint, bytes bigint,
               started_at timestamptz, finished_at timestamptz)
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
AS 'MODULE_PATHNAME', 'iceberg_sync';

COMMENT ON FUNCTION iceberg_export.iceberg_sync(text, boolean)
IS 'sync one destination (NULL: every enabled one) in a background worker; raises an error if a run failed';

REVOKE ALL ON FUNCTION iceberg_export.iceberg_sync(text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export.iceberg_sync(text, boolean) TO iceberg_export_admin;

/* ---------------------------------------------------------------------
 * controlling runs
 * --------------------------------------------------------------------- */

-- cancel_sync stops a running sync; it ends as "cancelled" in the history
CREATE FUNCTION iceberg_export.cancel_sync(run_id uuid)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  worker integer;
BEGIN
  IF NOT pg_has_role(session_user, 'iceberg_export_admin', 'MEMBER')
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = session_user) THEN
    RAISE EXCEPTION 'permission denied to cancel iceberg_export syncs'
      USING ERRCODE = 'insufficient_privilege',
            HINT = 'Grant the iceberg_export_admin role to the user.';
  END IF;
  SELECT r.pid INTO worker FROM iceberg_export.sync_runs r
  WHERE r.run_id = cancel_sync.run_id AND r.status = 'running';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'sync run % is not running', run_id
      USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'See iceberg_export.sync_history for its status.';
  END IF;
  -- only ever signal our own sync workers
  IF worker IS NULL OR NOT EXISTS (SELECT FROM pg_stat_activity a
                                   WHERE a.pid = worker AND a.backend_type = 'iceberg_export sync') THEN
    RETURN false;
  END IF;
  RETURN pg_cancel_backend(worker);
END
$$;

COMMENT ON FUNCTION iceberg_export.cancel_sync(uuid)
IS 'cancel a running sync: tables keep their last committed snapshot and the run is recorded as cancelled';

REVOKE ALL ON FUNCTION iceberg_export.cancel_sync(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export.cancel_sync(uuid) TO iceberg_export_admin;

/* ---------------------------------------------------------------------
 * scheduling with pg_cron
 *
 * schedule() and unschedule() manage one pg_cron job per destination,
 * named iceberg_export:<destination>, whose command is
 * SELECT * FROM iceberg_export.iceberg_sync('<destination>').  pg_cron is
 * optional: its objects are only reached through dynamic SQL, so this
 * script installs without it, and both functions raise
 * feature_not_supported when it is not installed in this database.  They
 * run as the caller (not SECURITY DEFINER): pg_cron runs a job as the role
 * that scheduled it, and that must be the caller, never the extension owner.
 * --------------------------------------------------------------------- */

-- _cron_prepare checks the caller's rights and that pg_cron is installed here
CREATE FUNCTION iceberg_export._cron_prepare()
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF NOT pg_has_role(current_user, 'iceberg_export_admin', 'MEMBER')
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    RAISE EXCEPTION 'permission denied to schedule iceberg_export syncs'
      USING ERRCODE = 'insufficient_privilege',
            HINT = 'Grant the iceberg_export_admin role to the user.';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_cron') THEN
    RAISE EXCEPTION 'pg_cron is not installed in database "%"', current_database()
      USING ERRCODE = 'feature_not_supported',
            DETAIL = 'iceberg_export.schedule and iceberg_export.unschedule manage pg_cron jobs.',
            HINT = 'Install pg_cron (shared_preload_libraries = ''pg_cron'', then CREATE EXTENSION pg_cron) '
                   'in the database that cron.database_name names, and sync from there; '
                   'or call iceberg_export.iceberg_sync() from any other scheduler.';
  END IF;
  IF NOT has_schema_privilege('cron', 'USAGE') THEN
    RAISE EXCEPTION 'permission denied for schema cron'
      USING ERRCODE = 'insufficient_privilege',
            HINT = format('pg_cron lets only roles with USAGE on schema cron schedule jobs: GRANT USAGE ON SCHEMA cron TO %I (or to iceberg_export_admin).',
                          current_user);
  END IF;
END
$$;

-- schedule runs a destination's sync as a pg_cron job; it replaces an earlier schedule
CREATE FUNCTION iceberg_export.schedule(destination text, cron_expression text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  job_name text := 'iceberg_export:' || destination;
  other bigint;
  job bigint;
BEGIN
  PERFORM iceberg_export._cron_prepare();
  IF destination IS NULL
     OR NOT EXISTS (SELECT FROM iceberg_export.destinations d WHERE d.name = schedule.destination) THEN
    RAISE EXCEPTION 'destination "%" does not exist', destination
      USING ERRCODE = 'undefined_object',
            HINT = 'Create it with iceberg_export.create_destination(); iceberg_export.destinations_view lists them.';
  END IF;
  IF cron_expression IS NULL THEN
    RAISE EXCEPTION 'cron_expression must not be null'
      USING ERRCODE = 'null_value_not_allowed',
            HINT = 'Use iceberg_export.unschedule() to remove a schedule.';
  END IF;
  -- one job per destination: cron.schedule(name, ...) updates the caller's
  -- job of that name; jobs of that name of other roles (only a superuser
  -- sees them) go, so that two jobs never sync the same destination
  FOR other IN EXECUTE
      'SELECT jobid FROM cron.job WHERE jobname = $1 AND username <> current_user'
      USING job_name LOOP
    EXECUTE 'SELECT cron.unschedule($1)' USING other;
  END LOOP;
  EXECUTE 'SELECT cron.schedule($1, $2, $3)' INTO job
    USING job_name, cron_expression,
          format('SELECT * FROM iceberg_export.iceberg_sync(%L)', destination);
  RETURN job;
END
$$;

COMMENT ON FUNCTION iceberg_export.schedule(text, text)
IS 'sync a destination on a pg_cron schedule (job iceberg_export:<destination>, run as the caller); returns the job id';

-- unschedule removes a destination's pg_cron job; false if it had none
CREATE FUNCTION iceberg_export.unschedule(destination text)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  job bigint;
  found_job boolean := false;
BEGIN
  PERFORM iceberg_export._cron_prepare();
  -- cron.job shows a role its own jobs (a superuser all of them)
  FOR job IN EXECUTE 'SELECT jobid FROM cron.job WHERE jobname = $1'
      USING 'iceberg_export:' || destination LOOP
    EXECUTE 'SELECT cron.unschedule($1)' USING job;
    found_job := true;
  END LOOP;
  -- a dropped destination's job can still be removed
  IF NOT found_job
     AND NOT EXISTS (SELECT FROM iceberg_export.destinations d WHERE d.name = unschedule.destination) THEN
    RAISE EXCEPTION 'destination "%" does not exist', destination
      USING ERRCODE = 'undefined_object',
            HINT = 'iceberg_export.destinations_view lists the destinations; cron.job lists the scheduled jobs.';
  END IF;
  RETURN found_job;
END
$$;

COMMENT ON FUNCTION iceberg_export.unschedule(text)
IS 'remove the pg_cron job of a destination; returns false if it was not scheduled';

REVOKE ALL ON FUNCTION iceberg_export._cron_prepare(),
                       iceberg_export.schedule(text, text),
                       iceberg_export.unschedule(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export._cron_prepare(),
                          iceberg_export.schedule(text, text),
                          iceberg_export.unschedule(text)
    TO iceberg_export_admin;

/* ---------------------------------------------------------------------
 * progress of running syncs (shared memory; needs shared_preload_libraries)
 * --------------------------------------------------------------------- */

CREATE FUNCTION iceberg_export._sync_progress()
RETURNS TABLE (run_id uuid, destination text, pid integer, started_at timestamptz,
               phase text, target_table text, rows bigint, bytes bigint)
LANGUAGE C VOLATILE STRICT
AS 'MODULE_PATHNAME', 'sync_progress';

CREATE VIEW iceberg_export.sync_progress AS
SELECT * FROM iceberg_export._sync_progress();

COMMENT ON VIEW iceberg_export.sync_progress
IS 'running syncs: phase, and rows and bytes so far per table (empty unless iceberg_export is preloaded)';

REVOKE ALL ON FUNCTION iceberg_export._sync_progress() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION iceberg_export._sync_progress()
    TO iceberg_export_admin, iceberg_export_monitor;
REVOKE ALL ON iceberg_export.sync_progress FROM PUBLIC;
GRANT SELECT ON iceberg_export.sync_progress TO iceberg_export_admin, iceberg_export_monitor;
