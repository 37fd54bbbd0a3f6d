-- Schema version 5 to 6 (gpuprof-ingest applies it; see session.sql's version table).
-- ---- ingest_repairs (branch bytes) ----
-- Table ingest_repairs: the text gpuprof-ingest replaced with U+FFFD to store valid UTF-8. Sessions already
-- stored were not repaired: none (their text may hold any bytes; every output repairs it as it writes).
CREATE TABLE ingest_repairs (
	session_id INTEGER NOT NULL,
	pid INTEGER NOT NULL,
	file TEXT NOT NULL,
	what TEXT NOT NULL,
	count INTEGER NOT NULL
);
-- ---- end of ingest_repairs ----
