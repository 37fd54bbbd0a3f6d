-- Nsight Systems 2022.2 export of a saxpy on one A100-SXM4-40GB (older schema: EXPORT_META_DATA, TARGET_INFO_GPU), from hpcgroup/pipit (BSD-style licence)
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
INSERT INTO "ANALYSIS_DETAILS" VALUES(281474976710656,2269032514,1170854025,3439886539);
CREATE TABLE COMPOSITE_EVENTS (
    -- Thread sampling events.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID of the composite event.
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    cpu                         INTEGER,                               -- ID of CPU this thread was running on.
    threadState                 INTEGER,                               -- Thread state at the moment of sampling. See docs for specifics.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    cpuCycles                   INTEGER   NOT NULL                     -- Value of Performance Monitoring Unit (PMU) counter.
);
INSERT INTO "COMPOSITE_EVENTS" VALUES(1,24479746,20,1,302119224788637,1);
INSERT INTO "COMPOSITE_EVENTS" VALUES(2,25074100,20,1,302119224788637,1);
INSERT INTO "COMPOSITE_EVENTS" VALUES(3,25643126,20,1,302119224788637,1);
INSERT INTO "COMPOSITE_EVENTS" VALUES(4,26092521,20,1,302119224788637,1);
INSERT INTO "COMPOSITE_EVENTS" VALUES(5,26814642,20,1,302119224788637,1);
INSERT INTO "COMPOSITE_EVENTS" VALUES(6,28946687,20,1,302119224788637,1);
CREATE TABLE CUDA_CALLCHAINS (
    id                          INTEGER   NOT NULL,                    -- Part of PRIMARY KEY (id, stackDepth).
    symbol                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the function name.
    module                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the module name.
    unresolved                  INTEGER,                               -- True if the symbol was not resolved.
    originalIP                  INTEGER,                               -- Instruction pointer value.
    stackDepth                  INTEGER   NOT NULL,                    -- Zero-base index of the given function in call stack.

    PRIMARY KEY (id, stackDepth)
);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,544,296,1,140572407891336,0);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,438,296,1,140572407900220,1);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,546,156,1,140572591531702,2);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,102,147,NULL,140572642579355,3);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,547,134,NULL,4201602,4);
INSERT INTO "CUDA_CALLCHAINS" VALUES(1,328,134,NULL,4200186,5);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER   REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId), -- ID used to identify the API call that launched the event.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- StringId of the kernel name
    shortName                   INTEGER   NOT NULL,                    -- StringId of the short function name without arguments.
    mangledName                 INTEGER,                               -- StringId of the mangled function name.
    launchType                  INTEGER,                               -- Launch type of the kernel. See docs for specifics.
    cacheConfig                 INTEGER,                               -- Cache configuration used for the kernel. See enum CUfunc_cache.
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
    graphNodeId                 INTEGER   REFERENCES CUDA_GRAPH_EVENTS(graphNodeId), -- CUDA graph node creation ID.
    sharedMemoryLimitConfig     INTEGER                                -- Shared memory limit per block config. See enum CUpti_FuncShmemLimitConfig.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(924922186,942626994,0,1,7,140,302119223558144,670,671,642,1,1,26,2,1,1,512,1,1,0,0,0,127401984,1,16384,NULL,0);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(1196058242,1213791658,0,1,7,156,302119223558144,670,671,642,1,1,26,2,1,1,512,1,1,0,0,0,127401984,2,16384,NULL,0);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(1449177557,1466878365,0,1,7,172,302119223558144,670,671,642,1,1,26,2,1,1,512,1,1,0,0,0,127401984,3,16384,NULL,0);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(1696275954,1713996442,0,1,7,188,302119223558144,670,671,642,1,1,26,2,1,1,512,1,1,0,0,0,127401984,4,16384,NULL,0);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(1947782617,1965496577,0,1,7,204,302119223558144,670,671,642,1,1,26,2,1,1,512,1,1,0,0,0,127401984,5,16384,NULL,0);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER   REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId), -- ID used to identify the API call that launched the event.
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- Type of the memory copy. See enum CUDA_MEMCPY_KIND.
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- Source memory kind See enum CUDA_MEMOPR_MEMORY_KIND.
    dstKind                     INTEGER,                               -- Destination memory kind. See enum CUDA_MEMOPR_MEMORY_KIND.
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- UVM migration cause ID. See CUpti_ActivityUnifiedMemoryMigrationCause.
    graphNodeId                 INTEGER   REFERENCES CUDA_GRAPH_EVENTS(graphNodeId), -- CUDA graph node creation ID.
    virtualAddress              INTEGER                                -- Virtual base address of the page/s being transferred.
, name TEXT);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(887857742,906688200,0,1,7,138,302119223558144,262144000,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(906750887,924863307,0,1,7,139,302119223558144,262144000,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(942633682,962467264,0,1,7,141,302119223558144,262144000,2,NULL,2,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(1158713065,1177825504,0,1,7,154,302119223558144,262144000,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(1177889375,1196044290,0,1,7,155,302119223558144,262144000,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(1213799978,1233536281,0,1,7,157,302119223558144,262144000,2,NULL,2,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- CUDA event class enum value. See docs for specifics.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the function name.
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER   REFERENCES CUDA_CALLCHAINS(id) -- ID of the attached callchain.
, name TEXT);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(375087209,375088422,1,302119224788637,1,664,0,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(391977391,697228531,0,302119224788637,107,667,0,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(697738663,699053365,0,302119224788637,109,667,0,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(699107599,700540178,0,302119224788637,111,667,0,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(700612928,702024085,0,302119224788637,113,667,0,NULL,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(702093108,703516990,0,302119224788637,115,667,0,NULL,NULL);
CREATE TABLE EXPORT_META_DATA (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of export meta-data record
    value                       TEXT                                   -- Value of export meta-data record
);
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_PRODUCT_VERSION','2022.2.1.31');
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_PRODUCT_DATE','2022.2');
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_SCHEMA_VERSION','2.9.1');
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_SCHEMA_VERSION_MAJOR','2');
INSERT INTO "EXPORT_META_DATA" VALUES('EXPORT_SCHEMA_VERSION_MINOR','9');
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- NVTX event type enum value. See docs for specifics.
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Optional text message for non registered strings.
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId. See docs for specifics.
    textId                      INTEGER   REFERENCES StringIds(id),    -- StringId of the NVTX domain registered string.
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT                                   -- One of possible payload value union members.
);
INSERT INTO "NVTX_EVENTS" VALUES(64186762,NULL,75,NULL,NULL,NULL,'MPI',302119224788637,NULL,NULL,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(65117824,710796807,59,NULL,NULL,NULL,NULL,302119224788637,NULL,59,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(711718211,NULL,39,NULL,NULL,NULL,'MPI Rank 0',302119224788637,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(837497679,851453601,59,NULL,NULL,NULL,NULL,302119224788637,NULL,85,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(851454373,884983803,59,NULL,NULL,NULL,NULL,302119224788637,NULL,85,1,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(924881857,924940911,59,NULL,NULL,NULL,'saxpy',302119224788637,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE PROCESSES (
    -- Names and identifiers of processes captured in the report.

    globalPid                   INTEGER,                               -- Serialized GlobalId.
    pid                         INTEGER,                               -- The process ID.
    name                        TEXT                                   -- The process name.
);
INSERT INTO "PROCESSES" VALUES(302119223558144,1230493,'./saxpy-mpi-cuda');
INSERT INTO "PROCESSES" VALUES(281474993487872,1,'systemd');
INSERT INTO "PROCESSES" VALUES(281475010265088,2,'kthreadd');
INSERT INTO "PROCESSES" VALUES(281475027042304,3,'rcu_gp');
INSERT INTO "PROCESSES" VALUES(281475043819520,4,'rcu_par_gp');
INSERT INTO "PROCESSES" VALUES(281475094151168,7,'kworker/u256:0-error_wq');
CREATE TABLE PROFILER_OVERHEAD (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    nameId                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the function name.
    returnValue                 INTEGER   NOT NULL                     -- Return value of the function call.
);
INSERT INTO "PROFILER_OVERHEAD" VALUES(50043118,63992888,302119224788637,28,0);
INSERT INTO "PROFILER_OVERHEAD" VALUES(63099659,63407511,302119224788637,19,0);
INSERT INTO "PROFILER_OVERHEAD" VALUES(63468609,63861766,302119224788644,19,0);
INSERT INTO "PROFILER_OVERHEAD" VALUES(63924537,64388690,302119224788643,19,0);
INSERT INTO "PROFILER_OVERHEAD" VALUES(64147686,64177474,302119224788637,29,0);
INSERT INTO "PROFILER_OVERHEAD" VALUES(224600568,347742567,302119224788637,100,0);
CREATE TABLE ProcessStreams (
    globalPid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    filenameId                  INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the file name.
    contentId                   INTEGER   NOT NULL   REFERENCES StringIds(id) -- StringId of the stream content.
);
INSERT INTO "ProcessStreams" VALUES(302119223558144,20,21);
INSERT INTO "ProcessStreams" VALUES(302119223558144,16,17);
CREATE TABLE SAMPLING_CALLCHAINS (
    -- Callchain entries obtained from composite events, used to construct function table views.

    id                          INTEGER   NOT NULL   REFERENCES COMPOSITE_EVENTS(id), -- ID of the attached composite event.
    symbol                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the function name.
    module                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the module name.
    kernelMode                  INTEGER,                               -- True if kernel mode.
    thumbCode                   INTEGER,                               -- True if thumb code.
    unresolved                  INTEGER,                               -- True if the symbol was not resolved.
    specialEntry                INTEGER,                               -- True if artifical entry added during processing callchain.
    originalIP                  INTEGER,                               -- Instruction pointer value.
    unwindMethod                INTEGER   REFERENCES UnwindMethodType(number), -- Instruction pointer value.
    stackDepth                  INTEGER   NOT NULL, symbolName TEXT,                    -- Zero-base index of the given function in call stack.

    PRIMARY KEY (id, stackDepth)
);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(1,259,119,NULL,NULL,NULL,NULL,140572693141158,0,0,NULL);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(2,260,119,NULL,NULL,NULL,NULL,140572693131577,7,0,NULL);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(2,261,119,NULL,NULL,NULL,NULL,140572693134624,7,1,NULL);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(2,259,119,NULL,NULL,NULL,NULL,140572693141401,7,2,NULL);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(2,262,119,NULL,NULL,NULL,NULL,140572693110040,7,3,NULL);
INSERT INTO "SAMPLING_CALLCHAINS" VALUES(2,263,119,NULL,NULL,NULL,NULL,140572693198287,7,4,NULL);
CREATE TABLE SCHED_EVENTS (
    -- Thread scheduling events.

    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    cpu                         INTEGER   NOT NULL,                    -- ID of CPU this thread was scheduled in or out.
    isSchedIn                   INTEGER   NOT NULL,                    -- 0 if thread was scheduled out, non-zero otherwise.
    globalTid                   INTEGER                                -- Serialized GlobalId.
);
INSERT INTO "SCHED_EVENTS" VALUES(21932,118,1,302119224788637);
INSERT INTO "SCHED_EVENTS" VALUES(183273,118,0,302119224788637);
INSERT INTO "SCHED_EVENTS" VALUES(355985,113,1,302119224788637);
INSERT INTO "SCHED_EVENTS" VALUES(372758,113,0,302119224788637);
INSERT INTO "SCHED_EVENTS" VALUES(586770,113,1,302119224788637);
INSERT INTO "SCHED_EVENTS" VALUES(627488,113,0,302119224788637);
CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO "StringIds" VALUES(0,'[Unknown]');
INSERT INTO "StringIds" VALUES(1,'[kernel.kallsyms]');
INSERT INTO "StringIds" VALUES(2,'[Max depth]');
INSERT INTO "StringIds" VALUES(3,'[Broken backtraces]');
INSERT INTO "StringIds" VALUES(4,'[Called from Java]');
INSERT INTO "StringIds" VALUES(5,'QnxKernelTrace');
INSERT INTO "StringIds" VALUES(6,'GpuMetrics');
INSERT INTO "StringIds" VALUES(7,'mm_');
INSERT INTO "StringIds" VALUES(8,'task_submit');
INSERT INTO "StringIds" VALUES(9,'class_id');
INSERT INTO "StringIds" VALUES(10,'syncpt_id');
INSERT INTO "StringIds" VALUES(11,'syncpt_thresh');
INSERT INTO "StringIds" VALUES(12,'pid');
INSERT INTO "StringIds" VALUES(16,'/tmp/nvidia/nsight_systems/quadd_session_101230479/streams/pid_1230493_stderr.log');
INSERT INTO "StringIds" VALUES(17,'');
INSERT INTO "StringIds" VALUES(19,'TLS allocation');
INSERT INTO "StringIds" VALUES(20,'/tmp/nvidia/nsight_systems/quadd_session_101230479/streams/pid_1230493_stdout.log');
INSERT INTO "StringIds" VALUES(21,'Number of iterations: 5
Problem size (N): 32768000
Rank 0 - Number of GPUs: 1
Rank 0 => Correct results! it: 0
Rank 0 => Correct results! it: 1
Rank 0 => Correct results! it: 2
Rank 0 => Correct results! it: 3
Rank 0 => Correct results! it: 4
');
INSERT INTO "StringIds" VALUES(26,'[NSys Comms]');
INSERT INTO "StringIds" VALUES(27,'[NSys]');
INSERT INTO "StringIds" VALUES(28,'CUDA backtrace profiling initialization');
INSERT INTO "StringIds" VALUES(29,'NVTX profiling initialization');
INSERT INTO "StringIds" VALUES(32,'MPI_Allgatherv');
INSERT INTO "StringIds" VALUES(39,'MPI_Ialltoallv');
INSERT INTO "StringIds" VALUES(59,'MPI_Init');
INSERT INTO "StringIds" VALUES(64,'MPI_Issend');
INSERT INTO "StringIds" VALUES(66,'cuda-EvtHandlr');
INSERT INTO "StringIds" VALUES(75,'MPI_Ireduce_scatter_block');
INSERT INTO "StringIds" VALUES(85,'MPI_Send');
INSERT INTO "StringIds" VALUES(100,'CUDA profiling initialization');
INSERT INTO "StringIds" VALUES(101,'MPI Rank 0');
INSERT INTO "StringIds" VALUES(102,'cudaMalloc');
INSERT INTO "StringIds" VALUES(107,'8536cdee');
INSERT INTO "StringIds" VALUES(108,'[vdso]');
INSERT INTO "StringIds" VALUES(109,'[vsyscall]');
INSERT INTO "StringIds" VALUES(111,'libutil-2.31.so-2.31-150300.41.1.x86_64.debug');
INSERT INTO "StringIds" VALUES(113,'/lib64/libc-2.31.so');
INSERT INTO "StringIds" VALUES(115,'C8417D767BACCFADB39B474E484D46947915CD8F');
INSERT INTO "StringIds" VALUES(118,'EC122BF338C40399BAF7453971181E08E2F224AD');
INSERT INTO "StringIds" VALUES(119,'/lib64/ld-2.31.so');
INSERT INTO "StringIds" VALUES(134,'/global/u2/o/ocankur/apps/chatterbug/saxpy-mpi-cuda/saxpy-mpi-cuda');
INSERT INTO "StringIds" VALUES(138,'/global/common/software/nersc/pm-2021q4/easybuild/software/Nsight-Systems/2022.2.1/target-linux-x64/libLinuxKeyboardInterceptorProxy.so');
INSERT INTO "StringIds" VALUES(139,'14bf4647');
INSERT INTO "StringIds" VALUES(140,'/global/common/software/nersc/pm-2021q4/easybuild/software/Nsight-Systems/2022.2.1/target-linux-x64/libToolsInjectionMPICH64.so');
INSERT INTO "StringIds" VALUES(141,'127dda60');
INSERT INTO "StringIds" VALUES(147,'/opt/nvidia/hpc_sdk/Linux_x86_64/22.7/cuda/11.7/targets/x86_64-linux/lib/libcudart.so.11.7.60');
INSERT INTO "StringIds" VALUES(154,'/global/common/software/nersc/pm-2021q4/easybuild/software/Nsight-Systems/2022.2.1/target-linux-x64/libToolsInjectionMemoryAllocator.so');
INSERT INTO "StringIds" VALUES(155,'3b84d817');
INSERT INTO "StringIds" VALUES(156,'/usr/lib64/libcuda.so.525.105.17');
INSERT INTO "StringIds" VALUES(157,'libcuda.so.1.1.dbg');
INSERT INTO "StringIds" VALUES(161,'/opt/cray/pe/gcc/11.2.0/snos/lib64/libatomic.so.1.2.0');
INSERT INTO "StringIds" VALUES(172,'7c87f198');
INSERT INTO "StringIds" VALUES(188,'/usr/lib64/libidn2.so.0.3.6');
INSERT INTO "StringIds" VALUES(204,'libgssapi_krb5.so.2.2-1.19.2-150400.3.3.1.x86_64.debug');
INSERT INTO "StringIds" VALUES(259,'_dl_relocate_object');
INSERT INTO "StringIds" VALUES(260,'do_lookup_x');
INSERT INTO "StringIds" VALUES(261,'_dl_lookup_symbol_x');
INSERT INTO "StringIds" VALUES(262,'dl_main');
INSERT INTO "StringIds" VALUES(263,'_dl_sysdep_start');
INSERT INTO "StringIds" VALUES(296,'/global/common/software/nersc/pm-2021q4/easybuild/software/Nsight-Systems/2022.2.1/target-linux-x64/libcupti.so.11.7');
INSERT INTO "StringIds" VALUES(328,'main');
INSERT INTO "StringIds" VALUES(438,'0x7fd99070283c');
INSERT INTO "StringIds" VALUES(512,'0xffffffff81273b17');
INSERT INTO "StringIds" VALUES(544,'0x7fd990700588');
INSERT INTO "StringIds" VALUES(546,'0x7fd99b6226b6');
INSERT INTO "StringIds" VALUES(547,'cudaError cudaMalloc<double>(double**, unsigned long)');
INSERT INTO "StringIds" VALUES(642,'_Z5saxpyPdS_S_di');
INSERT INTO "StringIds" VALUES(663,'CUPTI worker thread');
INSERT INTO "StringIds" VALUES(664,'cuModuleGetLoadingMode');
INSERT INTO "StringIds" VALUES(667,'cudaHostRegister_v4000');
INSERT INTO "StringIds" VALUES(670,'saxpy(double *, double *, double *, double, int)');
INSERT INTO "StringIds" VALUES(671,'saxpy');
CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL                     -- Context ID.
);
INSERT INTO "TARGET_INFO_CUDA_NULL_STREAM" VALUES(7,0,1,1230493,0,1);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    hwId                        INTEGER   NOT NULL,                    -- Hardware ID.
    vmId                        INTEGER   NOT NULL,                    -- VM ID.
    processId                   INTEGER   NOT NULL,                    -- Process ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    priority                    INTEGER   NOT NULL,                    -- Priority of the stream.
    flag                        INTEGER   NOT NULL                     -- Flags for stream creation.
);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(10,0,1,1230493,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(9,0,1,1230493,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(11,0,1,1230493,1,0,2);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(12,0,1,1230493,1,4294967291,1);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(7,0,1,1230493,1,0,3);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(6,0,1,1230493,1,0,1);
INSERT INTO "TARGET_INFO_CUDA_STREAM" VALUES(8,0,1,1230493,1,0,2);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,                    -- Serialized GlobalId.
    id                          INTEGER   NOT NULL,                    -- Device ID.
    name                        TEXT,                                  -- Device name.
    busLocation                 TEXT,                                  -- PCI bus location.
    isDiscrete                  INTEGER,                               -- True if discrete, false if integrated.
    l2CacheSize                 INTEGER,                               -- Size of L2 cache (B).
    totalMemory                 INTEGER,                               -- Total amount of memory on the device (B).
    memoryBandwidth             INTEGER,                               -- Amount of memory transferred (B).
    clockRate                   INTEGER,                               -- Clock frequency (Hz).
    smCount                     INTEGER,                               -- Number of multiprocessors on the device.
    pwGpuId                     INTEGER,                               -- PerfWorks GPU ID.
    uuid                        TEXT,                                  -- Device UUID.
    luid                        INTEGER,                               -- Device LUID.
    chipName                    TEXT,                                  -- Chip name.
    cuDevice                    INTEGER,                               -- CUDA device ID.
    ctxswDevPath                TEXT,                                  -- GPU context switch device node path.
    ctrlDevPath                 TEXT,                                  -- GPU control device node path.
    revision                    INTEGER,                               -- Revision number.
    nodeMask                    INTEGER,                               -- Device node mask.
    constantMemory              INTEGER,                               -- Memory available on device for __constant__ variables (B).
    maxIPC                      INTEGER,                               -- Maximum instructions per count.
    maxRegistersPerBlock        INTEGER,                               -- Maximum number of 32-bit registers available per block.
    maxShmemPerBlock            INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerBlockOptin       INTEGER,                               -- Maximum optin shared memory per block.
    maxShmemPerSm               INTEGER,                               -- Maximum shared memory available per multiprocessor (B).
    maxRegistersPerSm           INTEGER,                               -- Maximum number of 32-bit registers available per multiprocessor.
    threadsPerWarp              INTEGER,                               -- Warp size in threads.
    asyncEngines                INTEGER,                               -- Number of asynchronous engines.
    maxWarpsPerSm               INTEGER,                               -- Maximum number of warps per multiprocessor.
    maxBlocksPerSm              INTEGER,                               -- Maximum number of blocks per multiprocessor.
    maxThreadsPerBlock          INTEGER,                               -- Maximum number of threads per block.
    maxBlockDimX                INTEGER,                               -- Maximum X-dimension of a block.
    maxBlockDimY                INTEGER,                               -- Maximum Y-dimension of a block.
    maxBlockDimZ                INTEGER,                               -- Maximum Z-dimension of a block.
    maxGridDimX                 INTEGER,                               -- Maximum X-dimension of a grid.
    maxGridDimY                 INTEGER,                               -- Maximum Y-dimension of a grid.
    maxGridDimZ                 INTEGER,                               -- Maximum Z-dimension of a grid.
    computeMajor                INTEGER,                               -- Major compute capability version number.
    computeMinor                INTEGER,                               -- Minor compute capability version number.
    smMajor                     INTEGER,                               -- Major multiprocessor version number.
    smMinor                     INTEGER                                -- Minor multiprocessor version number.
);
INSERT INTO "TARGET_INFO_GPU" VALUES(281474976710656,0,'NVIDIA A100-SXM4-40GB','0000:03:00.0',1,41943040,42297524224,1555200000000,1410000000,108,0,'74e128b2-90b6-b409-07c8-33bee5ff6f88',0,'GA100',0,'','',161,0,65536,4,65536,49152,166912,167936,65536,32,5,64,32,1024,1024,1024,64,2147483647,65535,65535,8,0,8,2);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (
    utcEpochNs                  INTEGER,                               -- UTC Epoch timestamp at start of the capture (ns).
    utcTime                     TEXT,                                  -- Start of the capture in UTC.
    localTime                   TEXT                                   -- Start of the capture in local time of target.
);
INSERT INTO "TARGET_INFO_SESSION_START_TIME" VALUES(1687813257637297504,'2023-06-26T21:00:57','2023-06-26T14:00:57');
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER   NOT NULL,                    -- Serialized GlobalId.
    devStateName                TEXT      NOT NULL,                    -- Device state name.
    name                        TEXT      NOT NULL,                    -- Property name.
    nameEnum                    INTEGER   NOT NULL,                    -- Property enum value.
    value                       TEXT      NOT NULL                     -- Property value.
);
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuCores',1,'128');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuSpeedMhz',2,'2450');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CpuArchitecture',3,'x86_64');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','SupportedABIs',5,'x86_64,');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','Supported64BitABIs',7,'x86_64');
INSERT INTO "TARGET_INFO_SYSTEM_ENV" VALUES(281474976710656,'Local (CLI)','CNTFRQMHz',11,'0');
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL   REFERENCES StringIds(id), -- StringId of the thread name.
    priority                    INTEGER,                               -- Priority of the thread.
    globalTid                   INTEGER                                -- Serialized GlobalId.
);
INSERT INTO "ThreadNames" VALUES(27,10,302119224788643);
INSERT INTO "ThreadNames" VALUES(663,10,302119224788646);
INSERT INTO "ThreadNames" VALUES(26,10,302119224788644);
INSERT INTO "ThreadNames" VALUES(101,0,302119224788637);
INSERT INTO "ThreadNames" VALUES(66,20,302119224788647);
INSERT INTO "ThreadNames" VALUES(66,20,302119224788649);
CREATE TABLE UnwindMethodType (
    number                      INTEGER   PRIMARY KEY,
    name                        TEXT      NOT NULL
);
INSERT INTO "UnwindMethodType" VALUES(0,'Unknown');
INSERT INTO "UnwindMethodType" VALUES(1,'FramePointer');
INSERT INTO "UnwindMethodType" VALUES(2,'UnwindTable');
INSERT INTO "UnwindMethodType" VALUES(3,'LR_FramePointer');
INSERT INTO "UnwindMethodType" VALUES(4,'LR_UnwindTable');
INSERT INTO "UnwindMethodType" VALUES(5,'KernelContext');
INSERT INTO "UnwindMethodType" VALUES(6,'DWARF_EH');
INSERT INTO "UnwindMethodType" VALUES(7,'DWARF_DF');
INSERT INTO "UnwindMethodType" VALUES(8,'LBR');
COMMIT;
