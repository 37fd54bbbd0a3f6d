-- classes: kernels by class (compute, communication, memory: analyze/kernel-classes.rules), their busy
-- time (kernels only: the union of their intervals) and the time classes overlap on a device.
-- Classifying names and the interval unions and intersections per device are in classes.c.
-- The kernels (device, interval, name) come from the shared columns of kernels.sql; the name filters
-- are applied per name, in C, so that percentages stay shares of all kernels' busy time.
-- Statement 1: a kernel name by id, and whether it passes --match and --exclude.
SELECT value, (:match IS NULL OR value REGEXP :match) AND (:exclude IS NULL OR NOT value REGEXP :exclude)
FROM strings WHERE session_id = :session AND id = :id;
