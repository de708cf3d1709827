package composefile

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lnbench/lnbench/usage"
)

func TestLoadEmbeddedFragments(t *testing.T) {
	f, err := LoadFragments(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		name      string
		published []int
	}{
		usage.RoleChain:   {"btcd", []int{BtcdRPCPort}},
		RoleLND:           {"lnd", []int{LndRPCPort}},
		usage.RoleSampler: {"sampler", []int{SamplerControlPort}},
	}
	for role, w := range want {
		got, ok := f[role]
		if !ok {
			t.Fatalf("role %s not loaded", role)
		}
		if got.Name != w.name || len(got.Published) != len(w.published) {
			t.Errorf("%s: %v", role, got)
		}
		for i := range w.published {
			if got.Published[i] != w.published[i] {
				t.Errorf("%s publishes %v, want %v", role, got.Published, w.published)
			}
		}
		if got.Service.Environment["HOME"] != "/data" {
			t.Errorf("%s: HOME must be /data", role)
		}
	}
}

func TestLoadFragmentsFromFolder(t *testing.T) {
	good := func(name string) string {
		return "services:\n  " + name + ":\n    entrypoint: [\"x\"]\n    ports: [\"127.0.0.1::1\"]\n"
	}
	fsys := fstest.MapFS{
		"chain.yml":     {Data: []byte(good("btcd"))},
		"actor-lnd.yml": {Data: []byte(good("lnd"))},
		"actor-cln.yml": {Data: []byte(good("cln"))},
		"sampler.yml":   {Data: []byte("services:\n  sampler:\n    entrypoint: [\"s\"]\n")},
	}
	f, err := LoadFragments(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if f[usage.RoleChain].Service.Entrypoint[0] != "x" || f[usage.RoleChain].Published[0] != 1 {
		t.Errorf("chain: %+v", f[usage.RoleChain])
	}
	delete(fsys, "sampler.yml")
	if _, err := LoadFragments(fsys); err == nil || !strings.Contains(err.Error(), "sampler.yml") {
		t.Errorf("a missing fragment must name the file, got %v", err)
	}
}

func TestParseFragmentRejects(t *testing.T) {
	cases := map[string]string{
		"exactly one service":        "services:\n  a:\n    entrypoint: [x]\n  b:\n    entrypoint: [x]\n",
		"field restart not found":    "services:\n  a:\n    entrypoint: [x]\n    restart: always\n",
		"field networks not found":   "networks:\n  n: {}\nservices:\n  a:\n    entrypoint: [x]\n",
		"sets image":                 "services:\n  a:\n    entrypoint: [x]\n    image: foo\n",
		"sets command":               "services:\n  a:\n    entrypoint: [x]\n    command: [y]\n",
		"sets user":                  "services:\n  a:\n    entrypoint: [x]\n    user: \"0:0\"\n",
		"sets volumes":               "services:\n  a:\n    entrypoint: [x]\n    volumes: [{type: bind, source: /, target: /x}]\n",
		"sets hostname":              "services:\n  a:\n    entrypoint: [x]\n    hostname: h\n",
		"needs an entrypoint":        "services:\n  a:\n    init: true\n",
		"sets the label lnbench.run": "services:\n  a:\n    entrypoint: [x]\n    labels: {lnbench.run: x}\n",
		"publish only on loopback":   "services:\n  a:\n    entrypoint: [x]\n    ports: [\"10009:10009\"]\n",
		"publish only on loopback ":  "services:\n  a:\n    entrypoint: [x]\n    ports: [\"0.0.0.0::10009\"]\n",
		"publish only on loopback  ": "services:\n  a:\n    entrypoint: [x]\n    ports: [\"127.0.0.1:10009:10009\"]\n",
		"out of range":               "services:\n  a:\n    entrypoint: [x]\n    ports: [\"127.0.0.1::70000\"]\n",
	}
	for want, text := range cases {
		_, err := ParseFragment("r", "f.yml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(want)) || !strings.Contains(err.Error(), "f.yml") {
			t.Errorf("want an error with %q naming f.yml, got %v", want, err)
		}
	}
}

func TestFragmentCloneIsDeep(t *testing.T) {
	f, err := LoadFragments(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := f[RoleLND].Service.clone()
	c.Labels["x"] = "y"
	c.Environment["HOME"] = "/elsewhere"
	c.Ports[0].Short = "changed"
	if _, ok := f[RoleLND].Service.Labels["x"]; ok || f[RoleLND].Service.Environment["HOME"] != "/data" || f[RoleLND].Service.Ports[0].Short == "changed" {
		t.Error("clone shares maps or slices with the fragment")
	}
}
