package flamegraph

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

// FromProfile converts a pprof profile to folded stacks. Each sample's
// locations become frames root first, with inlined calls expanded (the
// caller before the inlined callee), named as pprof prints functions, e.g.
// github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC. The value
// used is the "samples" sample type when the profile has one (Go CPU
// profiles: samples/count, next to cpu/nanoseconds), else the profile's
// default sample type, else its last one. The result is merged and sorted.
func FromProfile(p *profile.Profile) (Folded, error) {
	return FromProfileSampleType(p, "")
}

// FromProfileSampleType is FromProfile with the sample type chosen by name
// (e.g. "cpu", "alloc_space"); "" chooses as FromProfile does.
func FromProfileSampleType(p *profile.Profile, sampleType string) (Folded, error) {
	if p == nil {
		return nil, errors.New("pprof: nil profile")
	}
	vi, err := valueIndex(p, sampleType)
	if err != nil {
		return nil, err
	}
	out := make(Folded, 0, len(p.Sample))
	for _, s := range p.Sample {
		if vi >= len(s.Value) || s.Value[vi] == 0 {
			continue
		}
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			if len(loc.Line) == 0 {
				frames = append(frames, fmt.Sprintf("0x%x", loc.Address))
				continue
			}
			// Line[0] is the innermost inlined function, the last the caller.
			for j := len(loc.Line) - 1; j >= 0; j-- {
				frames = append(frames, frameName(loc.Line[j], loc.Address))
			}
		}
		if len(frames) == 0 {
			frames = []string{"[no stack]"}
		}
		out = append(out, Stack{Frames: frames, Count: s.Value[vi]})
	}
	return out.Merge(), nil
}

func frameName(l profile.Line, addr uint64) string {
	name := ""
	if l.Function != nil {
		name = l.Function.Name
		if name == "" {
			name = l.Function.SystemName
		}
	}
	if name == "" {
		return fmt.Sprintf("0x%x", addr)
	}
	// ';' separates frames in folded stacks (it can occur in Go generic
	// shape names such as go.shape.struct { A int; B int }).
	return strings.ReplaceAll(name, ";", ",")
}

func valueIndex(p *profile.Profile, want string) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, errors.New("pprof: profile has no sample types")
	}
	find := func(name string) int {
		for i, st := range p.SampleType {
			if st.Type == name {
				return i
			}
		}
		return -1
	}
	if want != "" {
		if i := find(want); i >= 0 {
			return i, nil
		}
		var have []string
		for _, st := range p.SampleType {
			have = append(have, st.Type)
		}
		return 0, fmt.Errorf("pprof: no sample type %q (have %s)", want, strings.Join(have, ", "))
	}
	if i := find("samples"); i >= 0 {
		return i, nil
	}
	if p.DefaultSampleType != "" {
		if i := find(p.DefaultSampleType); i >= 0 {
			return i, nil
		}
	}
	return len(p.SampleType) - 1, nil
}

// ReadFile reads folded stacks or a pprof profile (gzipped or plain
// protobuf, as net/http/pprof serves them) from a file, telling them apart
// by content. Folded stacks may be gzipped too.
func ReadFile(path string) (Folded, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read is ReadFile for a reader.
func Read(r io.Reader) (Folded, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	plain := data
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if plain, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
	}
	if looksText(plain) {
		f, ferr := Parse(bytes.NewReader(plain))
		if ferr == nil {
			return f, nil
		}
		// pprof also reads some legacy text profile formats.
		if p, err := profile.ParseData(data); err == nil {
			return FromProfile(p)
		}
		return nil, ferr
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("neither folded stacks nor a pprof profile: %w", err)
	}
	return FromProfile(p)
}

// looksText tells folded text from protobuf, whose length prefixes and
// varints always put control bytes in the first few hundred bytes.
func looksText(b []byte) bool {
	if len(b) > 4096 {
		b = b[:4096]
		for i := 0; i < 4 && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1] // a rune cut at the window's end
		}
	}
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
