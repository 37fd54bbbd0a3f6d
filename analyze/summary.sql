-- summary: what the session is; its GPU span, busy and idle time (summed over devices) come from busy.sql
-- and busy.c, the one definition devices and idle use too.
SELECT s.id, s.uuid, s.source, s.program, s.hostname, s.engine, s.start_ns, s.end_ns,
       s.end_ns - s.start_ns AS wall_span_ns, s.clean_end,
       (SELECT count(*) FROM processes p WHERE p.session_id = s.id),
       (SELECT count(DISTINCT id) FROM devices d WHERE d.session_id = s.id),
       (SELECT count(*) FROM memcpys c WHERE c.session_id = s.id),
       (SELECT coalesce(sum(bytes), 0) FROM memcpys c WHERE c.session_id = s.id),
       (SELECT count(*) FROM memsets m WHERE m.session_id = s.id),
       (SELECT coalesce(sum(bytes), 0) FROM memsets m WHERE m.session_id = s.id),
       (SELECT count(*) FROM ranges r WHERE r.session_id = s.id),
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id AND x.source <> 'wire'),
       (SELECT coalesce(sum(count), 0) FROM drops x WHERE x.session_id = s.id AND x.source = 'wire'),
       (SELECT count(*) FROM ingest_errors e WHERE e.session_id = s.id)
FROM sessions s WHERE s.id = :session;
