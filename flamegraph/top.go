package flamegraph

import "sort"

// FrameShare is a function's share of all samples.
type FrameShare struct {
	Name    string
	Samples int64
	Percent float64 // of all samples
}

// TopSelf returns the n functions with the most self samples (samples
// where the function is the leaf frame), most first; n <= 0 returns all.
func TopSelf(f Folded, n int) []FrameShare {
	counts := map[string]int64{}
	for _, s := range f {
		if len(s.Frames) > 0 && s.Count > 0 {
			counts[s.Frames[len(s.Frames)-1]] += s.Count
		}
	}
	return top(counts, f.Total(), n)
}

// TopInclusive returns the n functions with the most inclusive samples
// (samples with the function anywhere on the stack, counted once per stack
// however often it recurses), most first; n <= 0 returns all.
func TopInclusive(f Folded, n int) []FrameShare {
	counts := map[string]int64{}
	seen := map[string]bool{}
	for _, s := range f {
		if s.Count <= 0 {
			continue
		}
		clear(seen)
		for _, fr := range s.Frames {
			if !seen[fr] {
				seen[fr] = true
				counts[fr] += s.Count
			}
		}
	}
	return top(counts, f.Total(), n)
}

func top(counts map[string]int64, total int64, n int) []FrameShare {
	out := make([]FrameShare, 0, len(counts))
	for name, c := range counts {
		fs := FrameShare{Name: name, Samples: c}
		if total > 0 {
			fs.Percent = 100 * float64(c) / float64(total)
		}
		out = append(out, fs)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Samples != out[j].Samples {
			return out[i].Samples > out[j].Samples
		}
		return out[i].Name < out[j].Name
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
