-- devices: properties of one device of the session (busy time comes from busy.sql).
SELECT sms, memory_bytes, cc_major || '.' || cc_minor, name FROM devices
WHERE session_id = :session AND id = :device
ORDER BY pid LIMIT 1;
