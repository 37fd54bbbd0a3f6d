-- idle, streams, gaps: where the GPUs did nothing. Span, busy and idle time per device and every GPU
-- interval come from busy.sql and busy.c, the one definition summary and devices use too.
-- gaps: what the host was doing comes from the shared API call columns (kernels.sql).
-- Statement 1 (gaps): a call's name.
SELECT value FROM strings WHERE session_id = :session AND id = :id;
