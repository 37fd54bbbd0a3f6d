-- analysis: energy
-- title: Energy per GPU and in all: joules, kWh, average power, per iteration; CO2e (--carbon-intensity)
-- include: views
-- option: carbon_intensity - grams of CO2e per kWh of the grid that powered the run (no default): adds co2e_g
-- section: 23
-- table: energy Energy per GPU and in all (NVML), per iteration, and CO2e
-- column: rank int,hide-group the GPU's rank (its node's), where the source names one; left out in a session of one node
-- column: host text,hide-group the GPU's host, where the source names one; left out in a session of one node
-- column: device int the device (NULL in the row for all GPUs)
-- column: method text "From" counter, power or counter+power: how the steps were measured
-- column: samples count NVML samples
-- column: span_ns ns "Sampled span" first sample to last
-- column: joules real "Energy J" energy over the sampled span
-- column: kwh real "kWh" joules / 3.6e6
-- column: avg_w real "Avg power W" joules over span_ns, W
-- column: steps count iterations
-- column: joules_per_step real "J per step" their mean energy
-- column: co2e_g real "CO2e g" kwh x --carbon-intensity; NULL without it
--
-- energy: the energy each GPU used during the session, from NVML's samples (device_metrics), and per
-- iteration: one row per GPU and a last row for all of them (device NULL).
--
-- joules: the sum of the GPU's steps between consecutive samples (analyze/views.sql, temp.energy_steps):
-- the difference of NVML's energy counter (millijoules since the driver was loaded), else, where a
-- sample lacks the counter or it fell (driver reloaded, wrapped), the mean of the two power samples times
-- the step's time. `method` says which: counter, power, or counter+power. Energy before the first sample
-- and after the last is not known and not counted. kwh = joules / 3.6e6; avg_w = joules over the span
-- from the first sample to the last.
--
-- Iterations are temp.iterations (analyze/views.sql: ProfilerStep#N, step, iteration,
-- train_step, Step N; host ranges that ended), of the GPU's node. An iteration's energy is E(end) -
-- E(start), E the GPU's energy since its first sample, linear between samples (nothing before the first
-- sample or after the last): the steps that overlap it, each in the share of its time inside.
-- joules_per_step is their mean. In the all row: the sum of the GPUs' joules and of
-- their joules_per_step (a step of the whole job), avg_w over the span from the first GPU's first sample
-- to the last one's last, steps the most any GPU has.
--
-- Cost: 1,000,000 samples (4 GPUs x 250,000, 7 hours at 100 ms) and 10,000 iterations take 5.3 s of CPU
-- (8.8 s on 2 loaded cores): pairing consecutive samples (views.sql) and the iterations' overlap sums read
-- through an index on each step's end.
--
-- co2e_g = kwh x --carbon-intensity (grams of CO2e per kWh of the grid that powered the run: the user's
-- figure, no default); NULL without it.
DELETE FROM temp.energy_input;
INSERT INTO temp.energy_input (side, node, device, pid, ts_ns, energy_mj, power_mw)
SELECT 0, coalesce(g.node, 0), m.device_id, m.pid, m.ts_ns, m.energy_mj, m.power_mw
FROM device_metrics m LEFT JOIN temp.gpu_nodes g ON g.session_id = m.session_id AND g.pid = m.pid
WHERE m.session_id = :session AND (m.energy_mj IS NOT NULL OR m.power_mw IS NOT NULL)
ORDER BY 1, 2, 3, 4, 5;

-- Each GPU's steps, keyed by their end for the iterations' lookups.
DROP TABLE IF EXISTS temp.energy_curve;
CREATE TEMP TABLE energy_curve AS
SELECT node, device, samples, t0, t1, j, method FROM temp.energy_steps WHERE side = 0;
CREATE INDEX temp.energy_curve_at ON energy_curve(node, device, t1);

WITH devices AS (
	SELECT node, device, max(samples) AS samples, min(t0) AS first_ns, max(t1) AS last_ns, sum(j) AS joules,
	       CASE WHEN count(DISTINCT method) > 1 THEN 'counter+power' ELSE max(method) END AS method
	FROM temp.energy_curve GROUP BY node, device
),
iterations AS (
	SELECT node, start_ns, end_ns FROM temp.iterations WHERE session_id = :session
),
-- A GPU's energy in each of its node's iterations that its samples cover whole (one before its first sample
-- or after its last would count as less than it took): every step that overlaps it, in the share of the step's
-- time that falls inside (E linear between samples), read from the first step ending after the start up to
-- the first ending at or after the end.
per_step AS (
	SELECT node, device, count(*) AS steps, avg(joules) AS joules_per_step FROM (
		SELECT d.node, d.device, i.start_ns,
		       coalesce((SELECT sum(coalesce(c.j, 0) * (min(c.t1, i.end_ns) - max(c.t0, i.start_ns))
					    / (c.t1 - c.t0))
				 FROM temp.energy_curve c
				 WHERE c.node = d.node AND c.device = d.device AND c.t1 > i.start_ns AND c.t0 < i.end_ns
				   AND c.t1 > c.t0
				   AND c.t1 <= coalesce((SELECT min(e.t1) FROM temp.energy_curve e WHERE e.node = d.node
							 AND e.device = d.device AND e.t1 >= i.end_ns), d.last_ns)),
				0) AS joules
		FROM devices d JOIN iterations i ON i.node = d.node AND i.start_ns >= d.first_ns AND i.end_ns <= d.last_ns)
	GROUP BY node, device
),
rows AS (
	SELECT 0 AS all_row, d.node, d.device, d.method, d.samples, d.last_ns - d.first_ns AS span_ns, d.joules,
	       coalesce(s.steps, 0) AS steps, s.joules_per_step
	FROM devices d LEFT JOIN per_step s ON s.node = d.node AND s.device = d.device
	UNION ALL
	SELECT 1, NULL, NULL,
	       CASE WHEN count(DISTINCT d.method) > 1 OR max(d.method) = 'counter+power' THEN 'counter+power'
		    ELSE max(d.method) END,
	       sum(d.samples), max(d.last_ns) - min(d.first_ns), sum(d.joules), coalesce(max(s.steps), 0),
	       sum(s.joules_per_step)
	FROM devices d LEFT JOIN per_step s ON s.node = d.node AND s.device = d.device
	HAVING count(*) > 0
)
SELECT CASE WHEN r.all_row THEN NULL ELSE g.rank END AS rank, CASE WHEN r.all_row THEN NULL ELSE g.host END AS host,
       r.device, r.method, r.samples, r.span_ns, r.joules, r.joules / 3.6e6 AS kwh,
       CASE WHEN r.span_ns > 0 THEN r.joules * 1e9 / r.span_ns END AS avg_w, r.steps, r.joules_per_step,
       r.joules / 3.6e6 * :carbon_intensity AS co2e_g,
       'energy from NVML''s energy counter where the GPU has one, else from power samples integrated over '
       || 'time (method); ' || CASE WHEN :carbon_intensity IS NULL
				    THEN 'no --carbon-intensity given: CO2e not computed'
				    ELSE 'CO2e at ' || :carbon_intensity || ' g per kWh' END AS _note
FROM rows r LEFT JOIN temp.gpu_node_names g ON g.session_id = :session AND g.node = r.node
ORDER BY r.all_row, r.node, r.device;
