-- Schema version 4 with PRAGMA user_version (what session.sql made from a2cd17d on, until version 5): run on
-- a v4-meta2 database; tests/schema_versions.py runs v1.sql to v4-meta2.sql, then this. The views of that
-- time are those of v4-meta2.sql (gpuprof-ingest remakes views whenever it opens a database to write).
INSERT OR REPLACE INTO meta VALUES ('schema_version', '4');
PRAGMA application_id = 1196446278;
PRAGMA user_version = 4;
