-- Nsight Systems 2026.2.1 export (schema 3.25.0) of two H100s, one second: kernels, copies, memsets, syncs, API calls, overheads, NVTX; from GindaChen/nsys-ai (MIT), tests/fixtures/h100_2gpu_1s.sqlite
-- Cut down by tests/fuzz/nsys-trim.py (6 rows a table): tests/fuzz/fuzz_nsys.c builds it in memory and edits it.
PRAGMA page_size = 1024;
BEGIN TRANSACTION;
CREATE TABLE ANALYSIS_DETAILS (
    -- Details about the analysis session.

    globalVid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    duration                    INTEGER   NOT NULL,                    -- The total time span of the entire trace (ns).
    startTime                   INTEGER   NOT NULL,                    -- Trace start timestamp in nanoseconds.
    stopTime                    INTEGER   NOT NULL                     -- Trace stop timestamp in nanoseconds.
);
INSERT INTO "ANALYSIS_DETAILS" VALUES(281474976710656,295658072752,35255823190,330913895942);
CREATE TABLE ANALYSIS_FILE (
    -- Analysis file content

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    filename                    TEXT,                                  -- File path
    contentId                   INTEGER,                               -- REFERENCES StringIds(id) -- File content
    globalPid                   INTEGER   NOT NULL                     -- Serialized GlobalId.
);
INSERT INTO "ANALYSIS_FILE" VALUES(0,'/tmp/nvidia/nsight_systems/quadd_session_1069/streams/pid_80_stdout.log',8150,281476318887936);
INSERT INTO "ANALYSIS_FILE" VALUES(1,'/tmp/nvidia/nsight_systems/quadd_session_1069/streams/pid_80_stderr.log',55,281476318887936);
INSERT INTO "ANALYSIS_FILE" VALUES(2,'/root/.config/NVIDIA Corporation/nsys-config.ini',50,281474976710656);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
    qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.
    qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.
    qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.
    graphId                     INTEGER,                               -- Kernel graph ID.
    clusterX                    INTEGER,                               -- Cluster X dimension.
    clusterY                    INTEGER,                               -- Cluster Y dimension.
    clusterZ                    INTEGER,                               -- Cluster Z dimension.
    clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.
    maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.
    maxActiveClusters           INTEGER,                               -- Maximum active clusters.
    sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.
    tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155360295935,155360299999,0,1,0,7,1438831,281476838981632,331029,331030,330290,1,1,32,50,4,1,256,1,1,0,0,0,250871808,75429,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155360368270,155360371886,1,2,0,15,1477488,281476855758848,331029,331030,330290,1,1,32,50,4,1,256,1,1,0,0,0,250871808,75429,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155370237002,155370239370,0,1,0,7,1438983,281476838981632,331031,329668,330291,1,1,32,200,1,1,128,1,1,0,0,0,250871808,75434,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155370241386,155370250442,0,1,0,7,1438997,281476838981632,331032,331033,330292,1,1,32,4,1,1,32,16,1,16,0,0,250871808,75435,16384,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155370252426,155370253738,0,1,0,7,1439007,281476838981632,331034,329668,330293,1,1,32,1,1,1,128,1,1,0,0,0,250871808,75436,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(155370254666,155370256298,0,1,0,7,1439017,281476838981632,331035,329668,330294,1,1,32,1,1,1,128,1,1,0,0,0,250871808,75437,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER,                               -- Virtual base address of the page/s being transferred.
    copyCount                   INTEGER                                -- The total number of memcopy operations traced in this record. In CUDA MemcpyBatchAsync APIs, multiple memcpy operations may be batched together for optimization purposes based on certain heuristics.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155357525002,155360294527,0,1,0,7,1438779,281476838981632,4200595456,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155357602221,155360367086,1,2,0,15,1477436,281476855758848,4200595456,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155360306815,155367583702,0,1,0,7,1438862,281476838981632,201326592,1,NULL,1,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155360377806,155367653552,1,2,0,15,1477519,281476855758848,201326592,1,NULL,1,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155367589622,155367721751,0,1,0,7,1438871,281476838981632,201326592,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(155367658480,155367790672,1,2,0,15,1477528,281476855758848,201326592,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)
);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156064470498,156064471554,0,1,0,7,1462010,281476838981632,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156064593077,156064594357,1,2,0,15,1500667,281476855758848,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156230659908,156230661124,1,2,0,15,1501114,281476855758848,0,768,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156230781449,156230782857,0,1,0,7,1462457,281476838981632,0,768,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156249794953,156249796169,1,2,0,15,1501718,281476855758848,0,960,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(156249917177,156249918617,0,1,0,7,1463061,281476838981632,0,960,NULL,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_OVERHEAD (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER,                               -- REFERENCES StringIds(id) -- Function name
    overheadType                INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_OVERHEAD_TYPE(id)
);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155357706681,155360297984,103,281476838981743,1452809,331827,8);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155357787120,155360370650,103,281476855758960,1491466,331827,8);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155360448590,155367594542,103,281476838981743,1452824,331827,8);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155360510926,155367663184,103,281476855758960,1491481,331827,8);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155367604333,155367739881,103,281476838981743,1452826,331827,8);
INSERT INTO "CUPTI_ACTIVITY_KIND_OVERHEAD" VALUES(155367673162,155367809125,103,281476855758960,1491483,331827,8);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155357693245,155360305548,0,281476838981743,1452809,329669,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155360442298,155367601132,0,281476838981743,1452824,331673,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155367602162,155367743282,0,281476838981743,1452826,331673,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155367787420,155370184910,0,281476838981743,1452836,329669,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155370441047,155370444237,0,281476838981743,1452843,92644,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(155370447058,155370448275,0,281476838981743,1452848,329663,0,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- Correlation ID of the synchronization API to which this result is associated.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    deprecatedSyncType          INTEGER,                               -- Deprecated, use syncType instead. For older report, REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    syncType                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUPTI_SYNC_TYPE(id)
    eventId                     INTEGER   NOT NULL,                    -- Event ID for which the synchronization API is called.
    eventSyncId                 INTEGER                                -- CUDA Event Sync ID to link the synchronization API to associated event record API.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155370749805,155370752597,0,1,NULL,22,1452967,281476838981632,NULL,2,7197,21619);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155370756843,155370757447,0,1,NULL,26,1452973,281476838981632,NULL,2,7197,21619);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155370883238,155370885872,0,2,NULL,30,1491624,281476855758848,NULL,2,7197,21619);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155370889444,155370890126,0,2,NULL,34,1491630,281476855758848,NULL,2,7197,21619);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155371857289,155371859792,0,1,NULL,22,1453319,281476838981632,NULL,2,7199,21621);
INSERT INTO "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION" VALUES(155371863734,155371864275,0,1,NULL,26,1453325,281476838981632,NULL,2,7199,21621);
CREATE TABLE ENUM_CUDA_MEM_KIND (
    -- CUDA memory kind labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static');
INSERT INTO "ENUM_CUDA_MEM_KIND" VALUES(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');
CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (
    -- CUPTI overhead type labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(0,'OVERHEAD_UNDEFINED','Undefined');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(1,'OVERHEAD_UNKNOWN','Unknown');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(2,'OVERHEAD_DRIVER_COMPILER','Driver JIT compiler (CUDA)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(3,'OVERHEAD_CUPTI_BUFFER_FLUSH','Buffer flush (Profiler)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(4,'OVERHEAD_CUPTI_INSTRUMENTATION','Instrumentation (Profiler)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(5,'OVERHEAD_CUPTI_RESOURCE','Resource creation/destruction (Profiler)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(6,'OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING','Runtime module loading (CUDA)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(7,'OVERHEAD_LAZY_FUNCTION_LOADING','Lazy function loading (CUDA)');
INSERT INTO "ENUM_CUPTI_OVERHEAD_TYPE" VALUES(8,'OVERHEAD_COMMAND_BUFFER_FULL','Command buffer full (CUDA)');
CREATE TABLE META_DATA_CAPTURE (
    -- information about nsys capture parameters

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO "META_DATA_CAPTURE" VALUES('DEVICE_ID','Local (CLI)');
INSERT INTO "META_DATA_CAPTURE" VALUES('CAPTURE_EVENT_TYPE','NvtxEvents');
INSERT INTO "META_DATA_CAPTURE" VALUES('CAPTURE_EVENT_TYPE','Cuda');
INSERT INTO "META_DATA_CAPTURE" VALUES('RATE_HZ','0');
INSERT INTO "META_DATA_CAPTURE" VALUES('START_TRIGGER','Immediate');
INSERT INTO "META_DATA_CAPTURE" VALUES('STOP_TRIGGER','Delayed');
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_VERSION','2026.2.1.210');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_DATE','2026.2');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION','3.25.0');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_MINOR','25');
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
INSERT INTO "NVTX_EVENTS" VALUES(155357596302,155357609579,59,NULL,NULL,NULL,'aten::view, op_id = 314290',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(155357610915,155357620524,59,NULL,NULL,NULL,'aten::permute, op_id = 314291',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(155357616287,155357619127,59,NULL,NULL,NULL,'aten::as_strided, op_id = 314292',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(155357625519,155357627609,59,NULL,NULL,NULL,'aten::view, op_id = 314293',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(155357647753,155360316588,59,NULL,NULL,NULL,'aten::reshape, op_id = 314294',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(155357652758,155360310586,59,NULL,NULL,NULL,'aten::clone, op_id = 314295',281476838981743,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE NVTX_PAYLOAD_SCHEMAS (
    -- NVTX payload schema attributes.

    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    schemaId                    INTEGER,                               -- Identifier of the payload schema.
    name                        TEXT,                                  -- Schema name.
    type                        INTEGER,                               -- Schema type.
    flags                       INTEGER,                               -- Schema flags.
    numEntries                  INTEGER,                               -- Number of payload schema entries.
    payloadSize                 INTEGER,                               -- Size of the static payload.
    alignTo                     INTEGER                                -- Field alignment in bytes.
);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777218,NULL,1,NULL,4,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777230,NULL,1,NULL,1,8,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777220,NULL,1,NULL,2,16,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777226,NULL,1,NULL,3,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777225,NULL,1,NULL,3,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777227,NULL,1,NULL,4,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777218,NULL,1,NULL,4,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777230,NULL,1,NULL,1,8,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777220,NULL,1,NULL,2,16,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777226,NULL,1,NULL,3,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777225,NULL,1,NULL,3,24,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMAS" VALUES(1,16777227,NULL,1,NULL,4,24,NULL);
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (
    -- NVTX payload schema entries.

    domainId                    INTEGER   NOT NULL,                    -- User-controlled ID that can be used to group events.
    schemaId                    INTEGER   NOT NULL,                    -- Identifier of the payload schema.
    idx                         INTEGER   NOT NULL,                    -- Index of the entry in the payload schema.
    flags                       INTEGER,                               -- Payload entry flags.
    type                        INTEGER,                               -- Payload entry type.
    name                        TEXT,                                  -- Label of the payload entry.
    description                 TEXT,                                  -- Description of the payload entry.
    arrayOrUnionDetail          INTEGER,                               -- Array length (index) or selected union member.
    offset                      INTEGER                                -- Entry offset in the binary data in bytes.
);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777218,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777218,1,NULL,5,'No. of ranks',NULL,NULL,8);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777218,2,NULL,5,'Rank',NULL,NULL,12);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777218,3,NULL,5,'CUDA device',NULL,NULL,16);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777230,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
INSERT INTO "NVTX_PAYLOAD_SCHEMA_ENTRIES" VALUES(1,16777220,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL);
CREATE TABLE PROCESSES (
    -- Names and identifiers of processes captured in the report.

    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.
);
INSERT INTO "PROCESSES" VALUES(281482794893312,466,'python3');
INSERT INTO "PROCESSES" VALUES(281481503047680,389,'python3');
INSERT INTO "PROCESSES" VALUES(281482727784448,462,'python3');
INSERT INTO "PROCESSES" VALUES(281482811670528,467,'python3');
INSERT INTO "PROCESSES" VALUES(281481419161600,384,'ptxas');
INSERT INTO "PROCESSES" VALUES(281484506169344,568,'gcc');
CREATE TABLE ProcessStreams (
    globalPid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    filenameId                  INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- File name
    contentId                   INTEGER   NOT NULL                     -- REFERENCES StringIds(id) -- Stream content
);
INSERT INTO "ProcessStreams" VALUES(281476318887936,8149,8150);
INSERT INTO "ProcessStreams" VALUES(281476318887936,54,55);
INSERT INTO "ProcessStreams" VALUES(281474976710656,46,50);
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO "StringIds" VALUES(0,'GpuMetrics');
INSERT INTO "StringIds" VALUES(1,'SocMetrics');
INSERT INTO "StringIds" VALUES(2,'mm_');
INSERT INTO "StringIds" VALUES(21,'dumb-init');
INSERT INTO "StringIds" VALUES(22,'python');
INSERT INTO "StringIds" VALUES(23,'bash');
INSERT INTO "StringIds" VALUES(24,'nsys');
INSERT INTO "StringIds" VALUES(25,'cuda00001800007');
INSERT INTO "StringIds" VALUES(26,'*1Comm');
INSERT INTO "StringIds" VALUES(30,'*3AnalysisServi');
INSERT INTO "StringIds" VALUES(32,'[NSys Comms]');
INSERT INTO "StringIds" VALUES(34,'cuda0000380000f');
INSERT INTO "StringIds" VALUES(46,'/root/.config/NVIDIA Corporation/nsys-config.ini');
INSERT INTO "StringIds" VALUES(54,'/tmp/nvidia/nsight_systems/quadd_session_1069/streams/pid_80_stderr.log');
INSERT INTO "StringIds" VALUES(103,'grep');
INSERT INTO "StringIds" VALUES(8149,'/tmp/nvidia/nsight_systems/quadd_session_1069/streams/pid_80_stdout.log');
INSERT INTO "StringIds" VALUES(92644,'cudaEventCreateWithFlags_v3020');
INSERT INTO "StringIds" VALUES(329663,'cudaStreamIsCapturing_v10000');
INSERT INTO "StringIds" VALUES(329668,'vectorized_elementwise_kernel');
INSERT INTO "StringIds" VALUES(329669,'cudaLaunchKernel_v7000');
INSERT INTO "StringIds" VALUES(330290,'_ZN2at6native24vectorized_gather_kernelILi16ElEEvPcS2_PT0_illllb');
INSERT INTO "StringIds" VALUES(330291,'_ZN2at6native29vectorized_elementwise_kernelILi4EZNS0_51_GLOBAL__N__b1108092_12_PowKernel_cu_398dda3b_2224229pow_tensor_scalar_kernel_implIffEEvRNS_18TensorIteratorBaseET0_EUlfE_St5arrayIPcLm2EEEEviS6_T1_');
INSERT INTO "StringIds" VALUES(330292,'_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_7MeanOpsIffffEEjfLi4ELi4EEEEEvT1_');
INSERT INTO "StringIds" VALUES(330293,'_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIfEESt5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO "StringIds" VALUES(330294,'_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_17rsqrt_kernel_cudaERNS_18TensorIteratorBaseEENKUlvE0_clEvENKUlvE0_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_');
INSERT INTO "StringIds" VALUES(331029,'void at::native::vectorized_gather_kernel<(int)16, long>(char *, char *, T2 *, int, long, long, long, long, bool)');
INSERT INTO "StringIds" VALUES(331030,'vectorized_gather_kernel');
INSERT INTO "StringIds" VALUES(331031,'void at::native::vectorized_elementwise_kernel<(int)4, void at::native::<unnamed>::pow_tensor_scalar_kernel_impl<float, float>(at::TensorIteratorBase &, T2)::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO "StringIds" VALUES(331032,'void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, (int)4, (int)4>>(T3)');
INSERT INTO "StringIds" VALUES(331033,'reduce_kernel');
INSERT INTO "StringIds" VALUES(331034,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctorOnSelf_add<float>, std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO "StringIds" VALUES(331035,'void at::native::vectorized_elementwise_kernel<(int)4, at::native::rsqrt_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance 2)]::operator ()() const::[lambda() (instance 2)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>>(int, T2, T3)');
INSERT INTO "StringIds" VALUES(331673,'cudaLaunchKernelExC_v11060');
INSERT INTO "StringIds" VALUES(331827,'Command Buffer Full');
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- REFERENCES ENUM_CUPTI_STREAM_TYPE(id)
);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(170,0,1,111,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(169,0,1,111,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(168,0,1,111,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(178,0,1,112,2,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(167,0,1,111,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(165,0,1,111,1,0,2);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT,                                  -- Start of the capture in local time of target.
    systemClockNs               INTEGER                                -- Target system clock timestamp at start of the capture (ns).
);
INSERT INTO "TARGET_INFO_SESSION_START_TIME" VALUES(1779630014975716426,'2026-05-24T13:40:14','2026-05-24T13:40:14',35255823190);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER,                               -- Serialized GlobalId.
    devStateName                TEXT      NOT NULL,                    -- Device state name.
    name                        TEXT      NOT NULL,                    -- Property name.
    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.
    value                       TEXT      NOT NULL                     -- Property value.
);
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuCores',1,'18');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuSpeedMhz',2,'4000');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuArchitecture',3,'x86_64');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','SupportedABIs',5,'x86_64,');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','Supported64BitABIs',7,'x86_64');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuDescription',13,'unknown');
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Thread name
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.
);
INSERT INTO "ThreadNames" VALUES(21,20,281474993487873);
INSERT INTO "ThreadNames" VALUES(22,20,281475010265090);
INSERT INTO "ThreadNames" VALUES(22,20,281475010265113);
INSERT INTO "ThreadNames" VALUES(23,20,281475412918298);
INSERT INTO "ThreadNames" VALUES(24,20,281475966566459);
INSERT INTO "ThreadNames" VALUES(25,20,281475966566462);
COMMIT;
