// Package usage is the stream of resource samples: one record per actor
// about once a second while a network runs, appended to resources.jsonl
// beside payments.jsonl. Counters are cumulative, as the kernel gives them;
// analysis takes differences, so a lost line costs resolution, not totals.
package usage

import (
	"io"
	"time"

	"github.com/lnbench/lnbench/internal/jsonl"
)

// FileName is the stream's name in the artifacts folder.
const FileName = "resources.jsonl"

// Actor roles: the Role of a sample and of the backend.Actor it was read
// from, defined here once (backends, the compose file's fragments and the
// cost analysis all name them so). The values are the stream's JSON.
const (
	RoleNode    = "node"
	RoleChain   = "chain"
	RoleSampler = "sampler"
	RoleHarness = "harness"
	// RoleHost is a pseudo-actor: the whole host's busy CPU (/proc/stat),
	// so package cost can tell what processes outside the run used.
	// Streams written before it have none; nothing else changes.
	RoleHost = "host"
	// RoleProxy is Docker's userland proxy (docker-proxy) behind the
	// published ports of a compose network: one row, "docker-proxy"
	// (backend.ProxyActor), whose CPU package cost counts in the harness's
	// share (it carries only the harness's calls: the nodes reach each
	// other and btcd over the compose network, not the published ports).
	RoleProxy = "proxy"
	// RoleDatabase is a database server the nodes keep their state in
	// (PostgreSQL, db=postgres): part of the network's cost, as the chain is.
	RoleDatabase = "database"
)

// NetworkRole says whether an actor of this role is the network's own (its
// cost is what a node spec changes): the nodes, the chain and a database
// server; not the harness, the sampler or the proxy, which measure the run.
func NetworkRole(role string) bool {
	return role == RoleNode || role == RoleChain || role == RoleDatabase
}

// PhaseIdle tags a network's samples while another network of its launch
// pair measures (the interleaved design): what the waiting network costs.
const PhaseIdle = "idle"

// Sources of a sample's figures.
const (
	SourceCgroupV1    = "cgroup-v1"
	SourceCgroupV2    = "cgroup-v2"
	SourceProc        = "proc"
	SourceDockerStats = "docker-stats"
	SourceProcStat    = "proc-stat" // the host pseudo-actor
)

// Sources of a sample's block-I/O figures (Sample.IOSource).
const (
	// IOCgroup: the cgroup's blkio.throttle.io_service_bytes (v1) or
	// io.stat (v2), when it lists a device.
	IOCgroup = "cgroup"
	// IOProc: /proc/<pid>/io read_bytes and write_bytes (bytes the
	// process sent to, or fetched from, the storage layer, counted when it
	// dirties a page), summed over the actor's processes. The fallback
	// where the cgroup lists no device: some kernels' v1 blkio counters
	// read zero for every cgroup, the root's included.
	IOProc = "proc-io"
	// IOEngine: the engine's stats API (blkio_stats), when it lists a device.
	IOEngine = "docker-stats"
	// IONone: nothing could be read.
	IONone = "none"
)

// Sample is one actor's counters at one instant.
type Sample struct {
	Time    time.Time `json:"time"`
	Network string    `json:"network"`
	// Case, Phase and Iteration tag the iteration running at Time; Case is
	// "" outside cases (setup, teardown).
	Case      string `json:"case,omitempty"`
	Phase     string `json:"phase,omitempty"` // result.Warmup | result.Measure | PhaseIdle
	Iteration int    `json:"iteration"`
	Actor     string `json:"actor"` // node name, "btcd", "sampler", "harness", "host"
	Role      string `json:"role"`
	Source    string `json:"source"`

	CPUUserSeconds float64 `json:"cpu_user_s"` // cumulative
	CPUSysSeconds  float64 `json:"cpu_sys_s"`  // cumulative
	// CPUStealSeconds is the host's steal time (the hypervisor ran someone
	// else), cumulative, already inside CPUSysSeconds; host samples only.
	CPUStealSeconds float64 `json:"cpu_steal_s,omitempty"`
	// CPULimit is the actor's CPU quota in CPUs; 0 means none (the host's cores).
	CPULimit float64 `json:"cpu_limit,omitempty"`
	// CPUPeriods and CPUThrottled count the quota's scheduler periods and
	// those in which the actor ran out of quota (cgroup cpu.stat nr_periods,
	// nr_throttled; cumulative): the CPU's saturation in the USE sense.
	CPUPeriods    int64 `json:"cpu_periods,omitempty"`
	CPUThrottled  int64 `json:"cpu_throttled,omitempty"`
	RSSBytes      int64 `json:"rss_bytes"`
	RSSPeakBytes  int64 `json:"rss_peak_bytes,omitempty"`
	MemLimitBytes int64 `json:"mem_limit_bytes,omitempty"`

	ReadBytes  int64 `json:"read_bytes"`  // cumulative block I/O
	WriteBytes int64 `json:"write_bytes"` // cumulative block I/O
	ReadOps    int64 `json:"read_ops"`
	WriteOps   int64 `json:"write_ops"`
	// IOSource says where the four block-I/O figures came from (IOCgroup,
	// IOProc, IOEngine), or IONone: no source answered on this host and
	// the zeros mean "not measurable", not "nothing written". "" in
	// streams written before it: taken as measured, as they always were.
	IOSource   string `json:"io_source,omitempty"`
	NetRxBytes int64  `json:"net_rx_bytes,omitempty"` // cumulative
	NetTxBytes int64  `json:"net_tx_bytes,omitempty"` // cumulative

	// Syncs is the cumulative count of fsync + fdatasync calls since the
	// counter attached; SyncsCounted says whether a counter was attached at all.
	Syncs        int64 `json:"syncs,omitempty"`
	SyncsCounted bool  `json:"syncs_counted,omitempty"`

	// Go runtime figures, where the actor exposes them (0: unknown).
	Goroutines int   `json:"goroutines,omitempty"`
	HeapBytes  int64 `json:"heap_bytes,omitempty"`

	// DataBytes is the size of the actor's data dir; set on the samples
	// taken at a case's start and end (0 elsewhere).
	DataBytes int64 `json:"data_bytes,omitempty"`
}

// CPUSeconds is user plus system time.
func (s Sample) CPUSeconds() float64 { return s.CPUUserSeconds + s.CPUSysSeconds }

// Writer appends samples; safe for concurrent use.
type Writer = jsonl.Writer[Sample]

// Create opens path for appending.
func Create(path string) (*Writer, error) { return jsonl.Create[Sample](path, "resource stream") }

// Read parses a resources.jsonl stream. A torn last line (a killed
// harness) is dropped; any other bad line is an error naming it.
func Read(r io.Reader) ([]Sample, error) { return jsonl.Read[Sample](r, FileName) }

// Load reads path; a missing file is no samples.
func Load(path string) ([]Sample, error) { return jsonl.Load[Sample](path, FileName) }

// DiskProbe is the sync rate of the filesystem holding node data dirs:
// 4 KiB writes each followed by fdatasync, in a loop for Seconds.
type DiskProbe struct {
	Storage        string  `json:"storage"` // "disk" or "tmpfs": the Storage param's value
	Path           string  `json:"path"`    // where the probe wrote (no secrets: a temp file)
	Filesystem     string  `json:"filesystem,omitempty"`
	Seconds        float64 `json:"seconds"`
	Syncs          int64   `json:"syncs"`
	SyncsPerSecond float64 `json:"syncs_per_second"`
}
