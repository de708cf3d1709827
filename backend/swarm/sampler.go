package swarm

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lnbench/lnbench/composefile"
	"github.com/lnbench/lnbench/record/traces"
)

// samplers are this network's sampler services, one per engine hosting
// nodes (none without Options.Sampler).
func (b *Backend) samplers() []composefile.StackSampler {
	b.mu.Lock()
	defer b.mu.Unlock()
	return composefile.StackSamplers(b.spec, b.stackSpec(nil))
}

func (b *Backend) isSampler(service string) bool {
	for _, s := range b.samplers() {
		if s.Service == service {
			return true
		}
	}
	return false
}

// StartSampler deploys the samplers of every engine hosting nodes and
// returns their control URLs (published in host mode on each engine's
// address, as the nodes' gRPC is), once each answers /healthz.
func (b *Backend) StartSampler(ctx context.Context) ([]string, error) {
	sms := b.samplers()
	if len(sms) == 0 {
		return nil, errors.New("swarm: the sampler is not enabled for this network")
	}
	var names []string
	for _, s := range sms {
		names = append(names, s.Service)
	}
	if err := b.deploy(ctx, names[0], names[1:]...); err != nil {
		return nil, fmt.Errorf("starting the samplers: %w", err)
	}
	urls := make([]string, len(sms))
	errs := make([]error, len(sms))
	var wg sync.WaitGroup
	for i, s := range sms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = b.waiting().Ready(ctx, b, "sampler", s.Service, b.onEngine(func(t task, e Engine) bool {
				p := t.Ports[composefile.SamplerControlPort]
				if p == 0 {
					return false
				}
				u := "http://" + net.JoinHostPort(e.Addr, strconv.Itoa(p))
				if !healthy(ctx, u) {
					return false
				}
				urls[i] = u
				return true
			}))
		}()
	}
	wg.Wait()
	return urls, errors.Join(errs...)
}

func healthy(ctx context.Context, url string) bool {
	hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(hctx, http.MethodGet, url+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// CollectTraces stops each engine's sampler (a window in progress is
// dropped, as when compose stops its sidecar) and copies the windows it
// stored into the artifacts folder: <Actor>_traces/ and traces.jsonl, as
// the compose sidecar writes them through its bind mount.
func (b *Backend) CollectTraces(ctx context.Context) error {
	var errs []error
	down := b.lostEngines(ctx)
	for _, s := range b.samplers() {
		if !slices.Contains(b.startedServices(), s.Service) {
			continue
		}
		if err := b.unreachable(down, s.Service); err != nil {
			errs = append(errs, fmt.Errorf("%s: its windows are lost: %v", s.Service, err))
			continue
		}
		t, err := b.taskOf(ctx, s.Service)
		if err != nil || t.Container == "" {
			errs = append(errs, fmt.Errorf("%s: no container (%v)", s.Service, err))
			continue
		}
		e, err := b.engineOf(t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := b.docker(ctx, e.Host, "stop", "-t", "5", t.Container); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", s.Service, err))
		}
		if err := b.copyArtifacts(ctx, e, t.Container, b.opts.ArtifactsDir); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", s.Service, err))
		}
	}
	return errors.Join(errs...)
}

// copyArtifacts copies a container's /artifacts (windows of the sampler or
// of sample-loop.sh) into dst: files are added under their relative path
// and traces.jsonl is appended to dst's index.
func (b *Backend) copyArtifacts(ctx context.Context, e Engine, container, dst string) error {
	tmp, err := os.MkdirTemp("", "lnbench-swarm-traces-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := b.docker(ctx, e.Host, "cp", container+":"+composefile.ContainerArtifacts+"/.", tmp); err != nil {
		return err
	}
	return mergeArtifacts(tmp, dst)
}

// mergeArtifacts adds the files under src to dst, appending src's
// traces.jsonl to dst's (the windows of several samplers share one index).
func mergeArtifacts(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == traces.IndexFile {
			f, err := os.OpenFile(filepath.Join(dst, rel), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				return err
			}
			_, werr := f.Write(data)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			return werr
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}
