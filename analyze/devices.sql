-- devices: properties of one device of the session (span, busy and idle time come from busy.sql and
-- busy.c, the one definition summary and idle use too).
SELECT sms, memory_bytes, cc_major || '.' || cc_minor, name FROM devices
WHERE session_id = :session AND id = :device
ORDER BY pid LIMIT 1;
