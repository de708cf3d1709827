// Package runs is this machine's view of lnbench runs. Each harness keeps a
// work folder under Root()/<run id> (node data dirs: wallets, macaroons, TLS
// keys) holding its own pid, so `lnbench ps` can tell a live run from a
// killed one and `lnbench down` can remove what a killed run left behind.
package runs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lnbench/lnbench/internal/runid"
)

// harnessFile names the harness that owns a work folder: "<pid> <start ticks>".
const harnessFile = "harness.pid"

// Root is where work folders live.
func Root() string { return filepath.Join(os.TempDir(), "lnbench") }

// TmpfsRoot holds a run's node data dirs when Storage=tmpfs, under
// TmpfsRoot/<run id>: a RAM filesystem, so they cannot live in the work
// folder. ps and down find them by the run's id.
var TmpfsRoot = "/dev/shm/lnbench"

// PostgresRoot holds the PostgreSQL clusters of a run's db=postgres nodes
// on the local backend, under PostgresRoot/<run id>: outside the work
// folder, which the server's unprivileged user may not enter.
func PostgresRoot() string { return filepath.Join(os.TempDir(), "lnbench-postgres") }

// Run is one run known on this machine.
type Run struct {
	ID      string
	Started time.Time // from the id's timestamp; zero when the id has none
	WorkDir string    // "" when the run has no work folder here
	// TmpfsDir holds the node data dirs of its Storage=tmpfs networks; ""
	// when there is none.
	TmpfsDir string
	// PostgresDir holds its local PostgreSQL clusters; "" when there is none.
	PostgresDir string
	PID         int  // the harness's pid, 0 when unknown
	Alive       bool // the harness process is still running
	Objects     int  // labelled Docker objects (containers, networks, volumes)
}

// Claim makes the run's work folder (0700: it will hold keys) and records
// the calling process as its harness.
func Claim(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("work folder: %v", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("work folder: %v", err)
	}
	pid := os.Getpid()
	line := fmt.Sprintf("%d %d\n", pid, startTicks(pid))
	return os.WriteFile(filepath.Join(dir, harnessFile), []byte(line), 0o600)
}

// Local lists the work folders under root, newest first.
func Local(root string) ([]Run, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Run
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		r := Run{ID: e.Name(), Started: StartedAt(e.Name()), WorkDir: filepath.Join(root, e.Name()), TmpfsDir: tmpfsDir(e.Name()), PostgresDir: postgresDir(e.Name())}
		r.PID, r.Alive = harness(r.WorkDir)
		out = append(out, r)
		seen[r.ID] = true
	}
	// tmpfs folders whose work folder is gone still hold keys.
	tmpfs, _ := os.ReadDir(TmpfsRoot)
	for _, e := range tmpfs {
		if e.IsDir() && !seen[e.Name()] {
			r := Run{ID: e.Name(), Started: StartedAt(e.Name()), TmpfsDir: filepath.Join(TmpfsRoot, e.Name())}
			r.PID, r.Alive = harness(r.TmpfsDir) // a harness with its work folder elsewhere ($TMPDIR)
			out = append(out, r)
		}
	}
	// A killed harness's clusters hold the server's password file.
	clusters, _ := os.ReadDir(PostgresRoot())
	for _, e := range clusters {
		if !e.IsDir() {
			continue
		}
		if i := slices.IndexFunc(out, func(r Run) bool { return r.ID == e.Name() }); i >= 0 {
			out[i].PostgresDir = filepath.Join(PostgresRoot(), e.Name())
			continue
		}
		out = append(out, Run{ID: e.Name(), Started: StartedAt(e.Name()), PostgresDir: filepath.Join(PostgresRoot(), e.Name())})
	}
	Sort(out)
	return out, nil
}

// postgresDir is the run's folder under PostgresRoot, or "" when it has none.
func postgresDir(id string) string {
	dir := filepath.Join(PostgresRoot(), id)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

// tmpfsDir is the run's folder under TmpfsRoot, or "" when it has none.
func tmpfsDir(id string) string {
	dir := filepath.Join(TmpfsRoot, id)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir
	}
	return ""
}

// HasFolders tells whether the run left a work folder or a tmpfs folder here.
func (r Run) HasFolders() bool { return r.Folders() != nil }

// Folders are the run's folders on this machine.
func (r Run) Folders() []string {
	var out []string
	for _, d := range []string{r.WorkDir, r.TmpfsDir, r.PostgresDir} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// Merge adds labelled Docker objects (count per run id) to the local list.
func Merge(local []Run, objects map[string]int) []Run {
	byID := map[string]int{}
	for i, r := range local {
		byID[r.ID] = i
	}
	for id, n := range objects {
		if i, ok := byID[id]; ok {
			local[i].Objects = n
			continue
		}
		local = append(local, Run{ID: id, Started: StartedAt(id), Objects: n})
	}
	Sort(local)
	return local
}

// Sort orders runs newest first, then by id.
func Sort(rs []Run) {
	sort.Slice(rs, func(i, j int) bool {
		if !rs[i].Started.Equal(rs[j].Started) {
			return rs[i].Started.After(rs[j].Started)
		}
		return rs[i].ID < rs[j].ID
	})
}

// StartedAt reads the timestamp a run id starts with (runid.Layout).
func StartedAt(id string) time.Time {
	if len(id) < len(runid.Layout) {
		return time.Time{}
	}
	t, err := time.Parse(runid.Layout, id[:len(runid.Layout)])
	if err != nil {
		return time.Time{}
	}
	return t
}

// Find returns the run with id, or false.
func Find(rs []Run, id string) (Run, bool) {
	for _, r := range rs {
		if r.ID == id {
			return r, true
		}
	}
	return Run{}, false
}

// IDs lists the runs' ids, for messages.
func IDs(rs []Run) string {
	if len(rs) == 0 {
		return "none"
	}
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return strings.Join(ids, ", ")
}

// harness reads a work folder's owner and whether it still runs. The start
// time guards against a recycled pid.
func harness(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, harnessFile))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return 0, false
	}
	pid, err1 := strconv.Atoi(f[0])
	ticks, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return 0, false
	}
	return pid, startTicks(pid) == ticks && ticks != 0
}

// startTicks is a process's start time in clock ticks since boot (field 22
// of /proc/<pid>/stat), 0 when the process does not exist.
func startTicks(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields resume after ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	t, _ := strconv.ParseInt(f[19], 10, 64)
	return t
}

// RemoveWorkDir deletes a run's work folder; it refuses a live run's.
func RemoveWorkDir(r Run) error {
	if !r.HasFolders() {
		return nil
	}
	if r.Alive {
		return fmt.Errorf("run %s is still running (harness pid %d); stop it first (Ctrl-C, or kill %d)", r.ID, r.PID, r.PID)
	}
	var errs []error
	for _, dir := range r.Folders() {
		errs = append(errs, os.RemoveAll(dir))
	}
	return errors.Join(errs...)
}
