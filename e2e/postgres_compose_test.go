//go:build e2e

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lnbench/lnbench/dbserver/postgres"
	"github.com/lnbench/lnbench/record/result"
)

// pgReading is one count read in the PostgreSQL container, between from
// and to (docker exec takes tens of milliseconds).
type pgReading struct {
	from, to time.Time
	count    int
}

// TestComposePostgresNodes: LND alice pays CLN bob on compose, both on
// db=postgres: the run's PostgreSQL container (built from Debian's
// postgresql on the base image) holds their databases. Read inside that
// container with psql during the run, bob's paid invoices always lie
// between the payments that had ended before the reading and those that
// had started by its end (plus the network's warm-up payment), and alice's database commits; the
// server is an actor of its own (role database) in the resource figures.
func TestComposePostgresNodes(t *testing.T) {
	bin := composeSetup(t)
	scen := postgresScenario(t, composeUniqueName("PGAliceBob"), "params: {Concurrency: [4], TotalPayments: [40]}\njob: {WarmupCount: 1, IterationCount: 3}\n")

	var mu sync.Mutex
	var paid []pgReading
	var commits int
	var lastErr error
	read := func() error {
		c, err := postgresContainer()
		if err != nil {
			return err
		}
		from := time.Now()
		n, err := psqlCount(c, "bob", "SELECT count(*) FROM invoices WHERE state = 1") // CLN: 1 is paid
		to := time.Now()
		if err != nil {
			return err
		}
		x, _ := psqlCount(c, "alice", "SELECT xact_commit FROM pg_stat_database WHERE datname = 'alice'")
		mu.Lock()
		paid = append(paid, pgReading{from: from, to: to, count: n})
		commits = max(commits, x)
		mu.Unlock()
		return nil
	}
	poll := newPoller()
	go func() {
		defer close(poll.done)
		for poll.tick(300 * time.Millisecond) {
			if err := read(); err != nil {
				mu.Lock()
				lastErr = err
				mu.Unlock()
			}
		}
	}()
	r := startCompose(t, bin, scen)
	r.finish(8 * time.Minute)
	poll.end()
	run := r.dir()

	recs := readRecords(t, run)
	ok := 0
	for _, r := range recs {
		if r.Status == result.Succeeded {
			ok++
		}
	}
	if ok == 0 {
		t.Fatal("no payment succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paid) == 0 {
		t.Fatalf("bob's database was never read in the PostgreSQL container (last: %v)", lastErr)
	}
	checked := 0
	for _, p := range paid {
		ended, started := 1, 1 // the network's warm-up payment, before any iteration
		for _, r := range recs {
			if r.Status != result.Succeeded {
				continue
			}
			if r.End.Before(p.from) {
				ended++
			}
			if r.Start.Before(p.to) {
				started++
			}
		}
		if started == 1 {
			continue // before the iterations
		}
		checked++
		if p.count < ended-1 || p.count > started {
			// ended-1: a payment's end is the payer's; bob's write may follow it by a moment
			t.Errorf("at %s–%s bob's database held %d paid invoices; %d payments had ended before, %d started by the end", p.from.Format("15:04:05.000"), p.to.Format("15:04:05.000"), p.count, ended, started)
		}
	}
	t.Logf("%d readings of bob's paid invoices during the iterations (last %d); alice's database committed %d transactions; %d payments succeeded", checked, paid[len(paid)-1].count, commits, ok)
	if checked < 3 {
		t.Errorf("only %d readings of bob's database during the iterations", checked)
	}
	if commits < ok {
		t.Errorf("alice's database committed %d transactions over %d payments", commits, ok)
	}
	found := false
	for _, c := range readSummaryResources(t, run) {
		for _, a := range c.Actors {
			if a.Name == postgres.Actor && a.Role == "database" && a.CPUMsPerPayment > 0 {
				found = true
				t.Logf("%s: postgres %.2f ms CPU and %.2f syncs per payment", c.ID, a.CPUMsPerPayment, a.SyncsPerPayment)
			}
		}
	}
	if !found {
		t.Error("no postgres actor with CPU in summary.json's resources")
	}
}

// postgresContainer is the running PostgreSQL container of an lnbench run
// ("" and why if there is not one).
func postgresContainer() (string, error) {
	out, err := composeDockerList("ps", "--filter", "label="+composeRunLabel, "--filter", "label=com.docker.compose.service="+postgres.Actor, "--format", "{{.ID}}")
	if err != nil || len(out) != 1 {
		return "", fmt.Errorf("postgres containers: %v %v", out, err)
	}
	return out[0], nil
}

// psqlCount runs a one-number query in the container with its own psql
// and the password in its environment.
func psqlCount(container, db, query string) (int, error) {
	script := fmt.Sprintf(`PGPASSWORD=$LNBENCH_PGPASS $(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql -h /tmp -U lnbench -d %s -Atc "%s"`, db, query)
	out, err := composeDockerList("exec", container, "sh", "-c", script)
	if err != nil || len(out) != 1 {
		return 0, fmt.Errorf("psql: %v %v", out, err)
	}
	return strconv.Atoi(strings.TrimSpace(out[0]))
}
