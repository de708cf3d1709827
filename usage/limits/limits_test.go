package limits

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		limits  Limits
		wantErr string // "" means valid
	}{
		{Limits{}, ""},
		{Limits{CPUs: 1.5, Memory: "512m"}, ""},
		{Limits{Memory: "512M"}, ""}, // Docker reads upper case too: one rule, not two
		{Limits{Memory: "2g"}, ""},
		{Limits{Memory: "1.5GiB"}, ""},
		{Limits{Memory: "6m"}, ""},
		{Limits{Memory: "6291456"}, ""},
		{Limits{CPUs: 0.01}, ""},
		{Limits{CPUs: -1}, "cpus -1: use a positive number"},
		{Limits{CPUs: 0.001}, "below Docker's minimum of 0.01"},
		{Limits{Memory: "512x"}, `memory "512x": use bytes`},
		{Limits{Memory: "lots"}, `memory "lots": use bytes`},
		{Limits{Memory: "-5m"}, `memory "-5m": use bytes`},
		{Limits{Memory: "0"}, `memory "0": use bytes`},
		{Limits{Memory: "5m"}, "below Docker's minimum of 6 MiB"},
		{Limits{Memory: "4096"}, "below Docker's minimum of 6 MiB"},
	}
	for _, tt := range tests {
		err := tt.limits.Validate()
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.limits, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%+v: err %v, want containing %q", tt.limits, err, tt.wantErr)
		}
	}
}

func TestFitHost(t *testing.T) {
	tests := []struct {
		cpus  float64
		cores int
		ok    bool
	}{{0, 1, true}, {2, 2, true}, {1.5, 2, true}, {2.5, 2, false}, {64, 8, false}}
	for _, tt := range tests {
		err := Limits{CPUs: tt.cpus}.FitHost(tt.cores)
		if (err == nil) != tt.ok {
			t.Errorf("cpus %g on %d cores: err %v", tt.cpus, tt.cores, err)
		}
		if err != nil && !strings.Contains(err.Error(), "use at most") {
			t.Errorf("error does not say the fix: %v", err)
		}
	}
}

func TestComposeMemory(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""}, {"512m", "512m"}, {"512M", "512m"}, {"2G", "2g"}, {"1.5g", "1536m"},
		{"1024k", "1m"}, {"7000000", "7000000"}, {"512MiB", "512m"}, {"8000k", "8000k"},
	}
	for _, tt := range tests {
		if got := (Limits{Memory: tt.in}).ComposeMemory(); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}
