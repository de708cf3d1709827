// Package nodespec reads node specs, the experimental variable of a run: a
// build (release or source tree, with a flavour) plus a config profile and a
// database variant, under a short label that names it in every report.
//
// Syntax: IMPL@SOURCE{+OPTION=VALUE}, where SOURCE is a release folder
// (v0.21.0-beta), src:PATH (the tree as it is) or src:PATH#REV (the
// committed content of a git revision of the clone at PATH), and the options are the build knobs (Go's
// pgo, goamd64, gcflags, ldflags, tags for LND; C's opt, march, fp,
// configure for Core Lightning), and profile, db and footprint:
//
//	lnd@v0.21.0-beta
//	lnd@v0.21.0-beta+pgo=default.pgo+goamd64=v3
//	lnd@src:../lnd+profile=bottlepay+db=sqlite-native
//	lnd@src:../lnd#v0.20.0-beta
//	lnd@v0.21.0-beta+footprint=small
//	cln@src:../lightning+opt=O3+march=native+fp=on
package nodespec

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// SourceVersion is Version of a spec that builds a local source tree (as
// nodebuild names it).
const SourceVersion = "src"

// Flavour are the build knobs of a spec: how a build compiles, beyond its
// fixed tags, knobs that change the binaries but not the source.
// nodebuild.Flavour is defined as this type (convert with
// nodebuild.Flavour(f)) and adds the build's methods; this package stays
// free of the build machinery, so scenarios, and the reports that read
// them, do not depend on it.
type Flavour struct {
	PGO     string   `json:"pgo,omitempty"`     // CPU profile for go build -pgo; its content is in the build key
	GOAMD64 string   `json:"goamd64,omitempty"` // v1..v4; empty is Go's default v1
	GCFlags string   `json:"gcflags,omitempty"` // passed as -gcflags=VALUE ("all=…" reaches dependencies)
	LDFlags string   `json:"ldflags,omitempty"` // passed as -ldflags=VALUE
	Tags    []string `json:"tags,omitempty"`    // build tags added to the build's own
	// C builds (Core Lightning): optimisation level (O3, not -O3), -march
	// value, frame pointers, extra ./configure arguments.
	COpt          string   `json:"copt,omitempty"`
	March         string   `json:"march,omitempty"`
	FramePointers bool     `json:"frame_pointers,omitempty"`
	Configure     []string `json:"configure,omitempty"`
}

var goamd64Levels = map[string]bool{"": true, "v1": true, "v2": true, "v3": true, "v4": true}

var tagPattern = regexp.MustCompile(`^[A-Za-z0-9_.]+$`)

// COptLevels are the optimisation levels a C build takes ("" is the tree's
// own default: CLN builds with -Og).
var COptLevels = []string{"O0", "O1", "O2", "O3", "Og", "Os", "Ofast"}

var marchPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_.+-]*$`)

// goKnobs and cKnobs name the set knobs of each kind, for the refusal of
// a knob the implementation's build does not have.
func (f Flavour) goKnobs() []string {
	var out []string
	for name, set := range map[string]bool{"pgo": f.PGO != "", "goamd64": f.GOAMD64 != "", "gcflags": f.GCFlags != "", "ldflags": f.LDFlags != "", "tags": len(f.Tags) > 0} {
		if set {
			out = append(out, name)
		}
	}
	return out
}

func (f Flavour) cKnobs() []string {
	var out []string
	for name, set := range map[string]bool{"opt": f.COpt != "", "march": f.March != "", "fp": f.FramePointers, "configure": len(f.Configure) > 0} {
		if set {
			out = append(out, name)
		}
	}
	return out
}

// checkFor refuses knobs impl's build does not have (Go knobs on CLN, C
// knobs on LND), then checks each knob's value.
func (f Flavour) checkFor(impl string) error {
	if impl == "cln" {
		if k := f.goKnobs(); len(k) > 0 {
			return fmt.Errorf("%s: a Go build knob, and CLN is built with make; use opt, march, fp or configure", k[0])
		}
	} else if k := f.cKnobs(); len(k) > 0 {
		return fmt.Errorf("%s: a C build knob (Core Lightning's); %s builds with Go: use pgo, goamd64, gcflags, ldflags or tags", k[0], impl)
	}
	if f.COpt != "" && !slices.Contains(COptLevels, f.COpt) {
		return fmt.Errorf("opt %q: use one of %s", f.COpt, strings.Join(COptLevels, ", "))
	}
	if f.March != "" && !marchPattern.MatchString(f.March) {
		return fmt.Errorf("march %q: use a gcc -march value such as native or x86-64-v3", f.March)
	}
	for _, c := range f.Configure {
		if !strings.HasPrefix(c, "--") {
			return fmt.Errorf("configure %q: give ./configure options (--enable-…, --disable-…), comma-separated", c)
		}
	}
	return f.check()
}

// check refuses what cannot be a knob; the PGO profile's content is
// checked when the build is resolved (nodebuild.Flavour.Validate).
func (f Flavour) check() error {
	if err := CheckGOAMD64(f.GOAMD64); err != nil {
		return err
	}
	return CheckTags(f.Tags)
}

// CheckGOAMD64 refuses a goamd64 level Go does not have ("" is Go's
// default); nodebuild.Flavour.Validate checks with it too.
func CheckGOAMD64(level string) error {
	if !goamd64Levels[level] {
		return fmt.Errorf("goamd64 %q: use v1, v2, v3 or v4", level)
	}
	return nil
}

// CheckTags refuses a tag that cannot be a Go build tag.
func CheckTags(tags []string) error {
	for _, t := range tags {
		if !tagPattern.MatchString(t) {
			return fmt.Errorf("tags: %q is not a build tag (letters, digits, _ and . only)", t)
		}
	}
	return nil
}

// Speed profiles: named flag sets on top of the flags a private simnet needs.
const (
	ProfileDefault   = "default"   // the implementation's own defaults
	ProfileTuned     = "tuned"     // the harness's speed flags (the default before 2026-11-26; CLN's default)
	ProfileBottlepay = "bottlepay" // the published bottlepay benchmark settings
)

// Profiles lists the speed profiles.
var Profiles = []string{ProfileDefault, ProfileTuned, ProfileBottlepay}

// Footprints: how much memory a node may take, on top of any profile.
// "small" trims runtime and cache sizes without touching the payment path
// (the node driver says which flags and environment that is).
const (
	FootprintDefault = "default"
	FootprintSmall   = "small"
)

// Footprints lists the footprints.
var Footprints = []string{FootprintDefault, FootprintSmall}

// Database variants.
const (
	DBBbolt        = "bbolt"
	DBSqlite       = "sqlite"
	DBSqliteNative = "sqlite-native" // sqlite with native SQL tables
	// DBPostgres runs the node on a PostgreSQL server the backend starts
	// beside the chain, one database per node.
	DBPostgres = "postgres"
	// DBPostgresNative is postgres with LND's native SQL tables.
	DBPostgresNative = "postgres-native"
)

// DBVariants lists the database variants.
var DBVariants = []string{DBBbolt, DBSqlite, DBSqliteNative, DBPostgres, DBPostgresNative}

// OnPostgres tells whether a database variant keeps the node's state on
// the network's PostgreSQL server.
func OnPostgres(db string) bool { return db == DBPostgres || db == DBPostgresNative }

// Spec is one node spec of a scenario.
type Spec struct {
	// Label names the spec in case ids, tables and topology files.
	Label string `json:"label" yaml:"name"`
	// Build is the source as nodebuild.Parse reads it: lnd@v0.21.0-beta or lnd@src:/abs/path.
	Build   string  `json:"build" yaml:"build"`
	Flavour Flavour `json:"flavour" yaml:"-"`
	// Profile is the speed profile; "" means the scenario's node.profile,
	// else the implementation's default (LND: default, CLN: tuned).
	Profile string `json:"profile,omitempty" yaml:"profile,omitempty"`
	// DB is the database variant; "" means the scenario's node.db_backend.
	DB string `json:"db,omitempty" yaml:"db,omitempty"`
	// Footprint is the memory footprint; "" means the implementation's own.
	Footprint string `json:"footprint,omitempty" yaml:"footprint,omitempty"`
	Baseline  bool   `json:"baseline,omitempty" yaml:"baseline,omitempty"`
	// Key is the build key, filled once the build is ensured.
	Key string `json:"key,omitempty" yaml:"-"`
}

var labelPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,47}$`)

// ValidateLabel is the rule for labels: they become parts of case ids and
// Go benchmark names, so no '/', '=', spaces or commas.
func ValidateLabel(label string) error {
	if !labelPattern.MatchString(label) {
		return fmt.Errorf("label %q: use 1-48 letters, digits, '.', '_', '+' or '-' (it names the spec in case ids)", label)
	}
	return nil
}

// Parse reads a spec string; the label is the default one. Relative paths
// (src:, pgo=) are from the current directory.
func Parse(text string) (Spec, error) { return ParseIn(text, "") }

// ParseIn is Parse with relative paths from dir: a spec written in a file
// names paths from that file's folder.
func ParseIn(text, dir string) (Spec, error) {
	text = strings.TrimSpace(text)
	impl, rest, ok := strings.Cut(text, "@")
	if !ok || impl == "" || rest == "" {
		return Spec{}, fmt.Errorf("node spec %q: use IMPL@VERSION (lnd@v0.21.0-beta) or IMPL@src:PATH, then +option=value (LND: pgo, goamd64, gcflags, ldflags, tags; CLN: opt, march, fp, configure; both: profile, db, footprint)", text)
	}
	// Options follow the first '+' that starts a known option, so a path
	// or version holding '+' elsewhere still reads.
	source, opts := rest, ""
	for i := 0; i < len(rest); i++ {
		if rest[i] == '+' && startsOption(rest[i+1:]) {
			source, opts = rest[:i], rest[i+1:]
			break
		}
	}
	s := Spec{}
	if path, isSrc := strings.CutPrefix(source, "src:"); isSrc {
		if path == "" {
			return Spec{}, fmt.Errorf("node spec %q: src: needs a path, e.g. lnd@src:../lnd", text)
		}
		path, rev, err := splitRevision(path)
		if err != nil {
			return Spec{}, fmt.Errorf("node spec %q: %v", text, err)
		}
		abs, err := absIn(dir, path)
		if err != nil {
			return Spec{}, fmt.Errorf("node spec %q: %v", text, err)
		}
		s.Build = impl + "@src:" + abs
		if rev != "" {
			s.Build += "#" + rev
		}
	} else {
		s.Build = impl + "@" + source
	}
	if opts != "" {
		for _, opt := range splitOptions(opts) {
			if err := s.setOption(opt, dir); err != nil {
				return Spec{}, fmt.Errorf("node spec %q: %v", text, err)
			}
		}
	}
	s.Label = s.DefaultLabel()
	return s, s.Validate()
}

// splitRevision splits src:PATH#REV. One '#' only: a path holding '#'
// would be ambiguous, so it is refused rather than guessed.
func splitRevision(path string) (string, string, error) {
	dir, rev, ok := strings.Cut(path, "#")
	switch {
	case !ok:
		return path, "", nil
	case strings.Contains(rev, "#"):
		return "", "", fmt.Errorf("more than one '#': src:PATH#REV takes one, before the revision (rename or symlink a folder whose name holds '#')")
	case dir == "":
		return "", "", fmt.Errorf("src: needs a path before #%s, e.g. lnd@src:../lnd#%s", rev, rev)
	case rev == "":
		return "", "", fmt.Errorf("'#' needs a git revision after it (a commit, tag or branch), e.g. src:%s#v0.20.0-beta", dir)
	case strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t"):
		return "", "", fmt.Errorf("revision %q: name a commit, tag or branch", rev)
	}
	return dir, rev, nil
}

var optionNames = []string{"pgo", "goamd64", "gcflags", "ldflags", "tags", "opt", "march", "fp", "configure", "profile", "db", "footprint"}

func startsOption(s string) bool {
	for _, n := range optionNames {
		if strings.HasPrefix(s, n+"=") {
			return true
		}
	}
	return false
}

// splitOptions splits "a=1+b=2" at each '+' that starts a known option, so
// values such as gcflags may hold '+'.
func splitOptions(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '+' && startsOption(s[i+1:]) {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// absIn makes p absolute, from dir when p is relative ("" = the current directory).
func absIn(dir, p string) (string, error) {
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return filepath.Abs(p)
}

func (s *Spec) setOption(opt, dir string) error {
	name, value, _ := strings.Cut(opt, "=")
	if value == "" {
		return fmt.Errorf("option %s: give a value (%s=…)", name, name)
	}
	switch name {
	case "pgo":
		abs, err := absIn(dir, value)
		if err != nil {
			return err
		}
		s.Flavour.PGO = abs
	case "goamd64":
		s.Flavour.GOAMD64 = value
	case "gcflags":
		s.Flavour.GCFlags = value
	case "ldflags":
		s.Flavour.LDFlags = value
	case "tags":
		s.Flavour.Tags = strings.Split(value, ",")
	case "opt":
		s.Flavour.COpt = strings.TrimPrefix(value, "-")
	case "march":
		s.Flavour.March = strings.TrimPrefix(value, "-march=")
	case "fp":
		switch value {
		case "on", "true", "1":
			s.Flavour.FramePointers = true
		case "off", "false", "0":
			s.Flavour.FramePointers = false
		default:
			return fmt.Errorf("option fp=%s: use fp=on or fp=off", value)
		}
	case "configure":
		s.Flavour.Configure = strings.Split(value, ",")
	case "profile":
		s.Profile = value
	case "db":
		s.DB = value
	case "footprint":
		s.Footprint = value
	default:
		return fmt.Errorf("option %q: use one of %s", name, strings.Join(optionNames, ", "))
	}
	return nil
}

// Implementation is the implementation the spec builds, e.g. "lnd".
func (s Spec) Implementation() string {
	impl, _, _ := strings.Cut(s.Build, "@")
	return impl
}

// LightStart tells whether a node of the spec is measured to start mostly
// waiting rather than computing: an LND whose wallet key derivation is cut
// (the lowscrypt tag; a full scrypt is ≈4 s of CPU a start). Core
// Lightning's start is not measured for it, so it counts as CPU.
func (s Spec) LightStart() bool {
	return s.Implementation() == "lnd" && slices.Contains(s.Flavour.Tags, "lowscrypt")
}

// Version is the release ("v0.21.0-beta"), or SourceVersion for a source tree.
func (s Spec) Version() string {
	_, v, _ := strings.Cut(s.Build, "@")
	if strings.HasPrefix(v, "src:") {
		return SourceVersion
	}
	return v
}

// IsSource tells whether the spec builds a local source tree.
func (s Spec) IsSource() bool { return s.Version() == SourceVersion }

// SourceDir is the source tree a spec builds ("" for a release): for a
// revision, the git clone it is read from.
func (s Spec) SourceDir() string {
	_, v, _ := strings.Cut(s.Build, "@")
	dir, _ := strings.CutPrefix(v, "src:")
	if dir == v {
		return ""
	}
	dir, _, _ = strings.Cut(dir, "#")
	return dir
}

// Revision is the git revision a source spec names after '#' ("" for the
// tree as it is).
func (s Spec) Revision() string {
	if !s.IsSource() {
		return ""
	}
	_, rev, _ := strings.Cut(s.Build, "#")
	return rev
}

// WithRevision is the spec at another revision of the same clone, its
// label the default one for it.
func (s Spec) WithRevision(rev string) Spec {
	impl := s.Implementation()
	s.Build = impl + "@src:" + s.SourceDir()
	if rev != "" {
		s.Build += "#" + rev
	}
	s.Label = s.DefaultLabel()
	return s
}

// DefaultLabel is short and says what differs: the version (or "src"),
// then "+pgo", "+goamd64v3", "+tags", "+gcflags", "+ldflags", the profile
// and db variant when set.
func (s Spec) DefaultLabel() string {
	label := s.Version()
	if rev := s.Revision(); rev != "" {
		label += "-" + labelSafe(rev)
	}
	f := s.Flavour
	if f.PGO != "" {
		label += "+pgo"
	}
	if f.GOAMD64 != "" && f.GOAMD64 != "v1" {
		label += "+goamd64" + f.GOAMD64
	}
	if f.GCFlags != "" {
		label += "+gcflags"
	}
	if f.LDFlags != "" {
		label += "+ldflags"
	}
	if len(f.Tags) > 0 {
		label += "+tags"
	}
	if f.COpt != "" {
		label += "+" + f.COpt
	}
	if f.March != "" {
		label += "+march-" + f.March
	}
	if f.FramePointers {
		label += "+fp"
	}
	if len(f.Configure) > 0 {
		label += "+configure"
	}
	if s.Profile != "" {
		label += "+" + s.Profile
	}
	if s.DB != "" {
		label += "+" + s.DB
	}
	if s.Footprint != "" && s.Footprint != FootprintDefault {
		label += "+" + s.Footprint
	}
	return label
}

// labelSafe turns a revision into label characters ('/' and '~' to '-').
func labelSafe(rev string) string {
	out := []byte(rev)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
			out[i] = '-'
		}
	}
	if len(out) > 24 {
		out = out[:24]
	}
	return string(out)
}

// Validate checks the label, profile, db variant and build knobs.
func (s Spec) Validate() error {
	if err := ValidateLabel(s.Label); err != nil {
		return err
	}
	if s.Profile != "" && !slices.Contains(Profiles, s.Profile) {
		return fmt.Errorf("node spec %s: profile %q: use one of %s", s.Label, s.Profile, strings.Join(Profiles, ", "))
	}
	if s.DB != "" && !slices.Contains(DBVariants, s.DB) {
		return fmt.Errorf("node spec %s: db %q: use one of %s", s.Label, s.DB, strings.Join(DBVariants, ", "))
	}
	if s.Footprint != "" && !slices.Contains(Footprints, s.Footprint) {
		return fmt.Errorf("node spec %s: footprint %q: use one of %s", s.Label, s.Footprint, strings.Join(Footprints, ", "))
	}
	if s.Implementation() == "cln" && !s.IsSource() {
		return fmt.Errorf("node spec %s: Core Lightning builds from a source tree or tarball: use cln@src:PATH", s.Build)
	}
	if err := s.Flavour.checkFor(s.Implementation()); err != nil {
		return fmt.Errorf("node spec %s: %v", s.Label, err)
	}
	return nil
}

// Text renders the spec so that Parse reads it back (label aside).
func (s Spec) Text() string {
	out := s.Build
	f := s.Flavour
	add := func(name, value string) {
		if value != "" {
			out += "+" + name + "=" + value
		}
	}
	add("pgo", f.PGO)
	add("goamd64", f.GOAMD64)
	add("gcflags", f.GCFlags)
	add("ldflags", f.LDFlags)
	add("tags", strings.Join(f.Tags, ","))
	add("opt", f.COpt)
	add("march", f.March)
	if f.FramePointers {
		add("fp", "on")
	}
	add("configure", strings.Join(f.Configure, ","))
	add("profile", s.Profile)
	add("db", s.DB)
	add("footprint", s.Footprint)
	return out
}
