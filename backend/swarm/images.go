package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Copied is what Distribute did for one image.
type Copied struct {
	Image   string
	ID      string
	To      []string // engines that received it
	Had     []string // engines that already had it (same image ID)
	Bytes   int64
	Seconds float64
}

// Distribute makes every image present on every engine, with no registry:
// images are compared by image ID (a hash of their content), and for each
// image some engines lack, one `docker save` on the local engine streams
// into a `docker load` on each of them at once. Progress goes to log.
func Distribute(ctx context.Context, images []string, engines []Engine, log io.Writer) ([]Copied, error) {
	var out []Copied
	seen := map[string]bool{}
	for _, img := range images {
		if img == "" || seen[img] {
			continue
		}
		seen[img] = true
		id, err := localID(ctx, img)
		if err != nil {
			return out, err
		}
		c := Copied{Image: img, ID: id}
		var lacking []Engine
		for _, e := range engines {
			if got, _ := docker(ctx, e.Host, "image", "inspect", "--format", "{{.Id}}", img); got == id {
				c.Had = append(c.Had, e.Name)
			} else {
				lacking = append(lacking, e)
			}
		}
		if len(lacking) == 0 {
			fmt.Fprintf(log, "images: %s (%s) is on every engine\n", img, shortID(id))
			out = append(out, c)
			continue
		}
		start := time.Now()
		n, err := saveLoad(ctx, img, lacking, log)
		c.Bytes, c.Seconds = n, time.Since(start).Seconds()
		var failed []string
		for _, e := range lacking {
			if got, _ := docker(ctx, e.Host, "image", "inspect", "--format", "{{.Id}}", img); got == id {
				c.To = append(c.To, e.Name)
			} else {
				failed = append(failed, e.Name)
			}
		}
		out = append(out, c)
		if len(failed) > 0 {
			return out, fmt.Errorf("image %s did not arrive on %s: %v", img, strings.Join(failed, ", "), err)
		}
		fmt.Fprintf(log, "images: %s (%s, %.0f MB) copied to %s in %.1fs\n", img, shortID(id), float64(n)/1e6, strings.Join(c.To, ", "), c.Seconds)
	}
	return out, nil
}

func localID(ctx context.Context, img string) (string, error) {
	out, err := exec.CommandContext(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", img).Output()
	if err != nil {
		return "", fmt.Errorf("image %s is not on the local Docker engine (lnbench images builds it)", img)
	}
	return strings.TrimSpace(string(out)), nil
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// saveLoad streams one `docker save` into a `docker load` per engine; an
// engine that fails stops receiving without stopping the others.
func saveLoad(ctx context.Context, img string, to []Engine, log io.Writer) (int64, error) {
	save := exec.CommandContext(ctx, "docker", "save", img)
	src, err := save.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var saveErr strings.Builder
	save.Stderr = &saveErr
	type sink struct {
		e    Engine
		w    io.WriteCloser
		cmd  *exec.Cmd
		err  error
		errb strings.Builder
	}
	var sinks []*sink
	for _, e := range to {
		s := &sink{e: e, cmd: exec.CommandContext(ctx, "docker", "-H", e.Host, "load", "-q")}
		s.cmd.Stderr = &s.errb
		if s.w, err = s.cmd.StdinPipe(); err != nil {
			return 0, err
		}
		if err := s.cmd.Start(); err != nil {
			return 0, fmt.Errorf("docker load on %s: %v", e.Name, err)
		}
		sinks = append(sinks, s)
	}
	if err := save.Start(); err != nil {
		return 0, err
	}
	var sent atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // progress every 5 s, for images that take a while
		defer wg.Done()
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(log, "images: %s: %.0f MB sent to %d engine(s)\n", img, float64(sent.Load())/1e6, len(to))
			}
		}
	}()
	buf := make([]byte, 1<<20)
	var readErr error
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			sent.Add(int64(n))
			for _, s := range sinks {
				if s.err == nil {
					_, s.err = s.w.Write(buf[:n])
				}
			}
		}
		if rerr != nil {
			if rerr != io.EOF {
				readErr = rerr
			}
			break
		}
	}
	close(done)
	wg.Wait()
	var errs []error
	if err := save.Wait(); err != nil || readErr != nil {
		errs = append(errs, fmt.Errorf("docker save %s: %v %v: %s", img, err, readErr, strings.TrimSpace(saveErr.String())))
	}
	for _, s := range sinks {
		s.w.Close()
		if err := s.cmd.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("docker load on %s: %v: %s", s.e.Name, err, strings.TrimSpace(s.errb.String())))
		} else if s.err != nil {
			errs = append(errs, fmt.Errorf("docker load on %s: %v", s.e.Name, s.err))
		}
	}
	return sent.Load(), errors.Join(errs...)
}
