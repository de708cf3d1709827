package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/lnbench/lnbench/internal/dockerapi"
	"github.com/lnbench/lnbench/usage"
)

// engineStats is the part of the engine's /containers/<id>/stats answer
// the fallback uses (cgroup v1 and v2 engines fill the same fields).
type engineStats struct {
	CPUStats struct {
		CPUUsage struct {
			User   uint64 `json:"usage_in_usermode"`
			Kernel uint64 `json:"usage_in_kernelmode"`
		} `json:"cpu_usage"`
	} `json:"cpu_stats"`
	MemoryStats struct {
		Usage    int64            `json:"usage"`
		MaxUsage int64            `json:"max_usage"`
		Limit    int64            `json:"limit"`
		Stats    map[string]int64 `json:"stats"`
	} `json:"memory_stats"`
	BlkioStats struct {
		Bytes []blkioEntry `json:"io_service_bytes_recursive"`
		Ops   []blkioEntry `json:"io_serviced_recursive"`
	} `json:"blkio_stats"`
	Networks map[string]struct {
		Rx int64 `json:"rx_bytes"`
		Tx int64 `json:"tx_bytes"`
	} `json:"networks"`
}

type blkioEntry struct {
	Op    string `json:"op"`
	Value int64  `json:"value"`
}

// DockerStats asks an engine for one container's stats, once: the engine
// at host (a DOCKER_HOST: an actor's Engine), or when host is "" the
// default one ($DOCKER_HOST when it is a unix socket, else
// /var/run/docker.sock). It is the fallback when the container's cgroup
// is not readable from here (a remote or rootless engine, a swarm's
// engines). one-shot asks for the counters without the engine's second
// of CPU sampling (engines before API 1.41 ignore it and take the second).
// A unix socket is dialed directly; any other DOCKER_HOST (ssh://, tcp://
// with the CLI's TLS settings) through `docker -H host system
// dial-stdio`, whose connections are kept for the next samples.
func DockerStats(ctx context.Context, host, containerID string) (usage.Sample, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://engine/containers/"+containerID+"/stats?stream=false&one-shot=true", nil)
	if err != nil {
		return usage.Sample{}, err
	}
	resp, err := dockerapi.Client(host).Do(req)
	if err != nil {
		if ctx.Err() != nil {
			// The sampling was stopped (its context's cause is no engine's
			// answer, e.g. a node's death that ended the phase).
			return usage.Sample{}, fmt.Errorf("docker stats: %v", ctx.Err())
		}
		return usage.Sample{}, fmt.Errorf("docker stats: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return usage.Sample{}, fmt.Errorf("docker stats: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return parseEngineStats(resp.Body)
}

func parseEngineStats(r io.Reader) (usage.Sample, error) {
	var st engineStats
	if err := json.NewDecoder(r).Decode(&st); err != nil {
		return usage.Sample{}, fmt.Errorf("docker stats: %v", err)
	}
	s := usage.Sample{Source: usage.SourceDockerStats,
		CPUUserSeconds: float64(st.CPUStats.CPUUsage.User) / 1e9,
		CPUSysSeconds:  float64(st.CPUStats.CPUUsage.Kernel) / 1e9,
		RSSPeakBytes:   st.MemoryStats.MaxUsage,
	}
	inactive := st.MemoryStats.Stats["total_inactive_file"] // v1
	if v, ok := st.MemoryStats.Stats["inactive_file"]; ok && inactive == 0 {
		inactive = v // v2
	}
	s.RSSBytes = st.MemoryStats.Usage - inactive
	if st.MemoryStats.Limit < noLimit {
		s.MemLimitBytes = st.MemoryStats.Limit
	}
	if len(st.BlkioStats.Bytes) > 0 {
		s.IOSource = usage.IOEngine
	}
	for _, e := range st.BlkioStats.Bytes {
		switch strings.ToLower(e.Op) {
		case "read":
			s.ReadBytes += e.Value
		case "write":
			s.WriteBytes += e.Value
		}
	}
	for _, e := range st.BlkioStats.Ops {
		switch strings.ToLower(e.Op) {
		case "read":
			s.ReadOps += e.Value
		case "write":
			s.WriteOps += e.Value
		}
	}
	for _, n := range st.Networks {
		s.NetRxBytes += n.Rx
		s.NetTxBytes += n.Tx
	}
	return s, nil
}
