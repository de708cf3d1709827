// Package gitrev reads a user's git clone without touching it: a revision's
// commit and its facts, the first-parent range between two commits, and the
// committed content of a commit (submodules included) exported into a
// folder. Nothing here writes to the clone's work tree, index or HEAD.
package gitrev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Commit is one commit and what a report says of it.
type Commit struct {
	ID         string    `json:"id"`
	Short      string    `json:"short"`
	Subject    string    `json:"subject"`
	Author     string    `json:"author,omitempty"`
	AuthorDate time.Time `json:"author_date"`
}

// String is "abc1234 subject".
func (c Commit) String() string { return c.Short + " " + c.Subject }

// logFormat is one commit per record: fields split by NUL, records by RS.
const logFormat = "%H%x00%h%x00%s%x00%an%x00%aI%x1e"

// git runs git in repo and returns its stdout; the error carries the first
// line git printed on stderr. --no-optional-locks keeps even git status
// from refreshing the clone's index.
func git(ctx context.Context, repo string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", repo}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return out, errors.New(msg)
	}
	return out, nil
}

// CheckClone refuses a path that is not the top of a git clone (a folder
// inside another repository is not its own clone).
func CheckClone(ctx context.Context, repo string) error {
	out, err := git(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("%s is not a git clone (%v); clone the node's repository, or drop #REV to build the folder as it is", repo, err)
	}
	top := strings.TrimSpace(string(out))
	if !sameDir(top, repo) {
		return fmt.Errorf("%s is inside the git clone %s, not its top; name the clone's top folder", repo, top)
	}
	return nil
}

func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}

// Resolve is the commit rev names in repo (a branch, tag, id or any
// git revision expression).
func Resolve(ctx context.Context, repo, rev string) (Commit, error) {
	if err := CheckClone(ctx, repo); err != nil {
		return Commit{}, err
	}
	if rev == "" || strings.HasPrefix(rev, "-") {
		return Commit{}, fmt.Errorf("revision %q: name a commit, branch or tag of %s", rev, repo)
	}
	out, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return Commit{}, fmt.Errorf("revision %q: no such commit in %s (check `git -C %s log --oneline`; fetch it first if it is on a remote)", rev, repo, repo)
	}
	commits, err := logOf(ctx, repo, "-1", strings.TrimSpace(string(out)))
	if err != nil || len(commits) != 1 {
		return Commit{}, fmt.Errorf("revision %q in %s: %v", rev, repo, err)
	}
	return commits[0], nil
}

func logOf(ctx context.Context, repo string, args ...string) ([]Commit, error) {
	out, err := git(ctx, repo, append([]string{"log", "--no-show-signature", "--format=" + logFormat}, args...)...)
	if err != nil {
		return nil, err
	}
	var commits []Commit
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.Split(rec, "\x00")
		if len(f) != 5 {
			return nil, fmt.Errorf("git log: unexpected record %q", rec)
		}
		date, _ := time.Parse(time.RFC3339, strings.TrimSpace(f[4]))
		commits = append(commits, Commit{ID: f[0], Short: f[1], Subject: f[2], Author: f[3], AuthorDate: date})
	}
	return commits, nil
}

// FirstParent lists the commits after good up to bad along bad's
// first-parent history, oldest first (bad last). good must be on that
// history: a commit merged in from a side branch has no place in it.
func FirstParent(ctx context.Context, repo string, good, bad Commit) ([]Commit, error) {
	if good.ID == bad.ID {
		return nil, fmt.Errorf("--good and --bad are the same commit %s; name an older good", good.Short)
	}
	if _, err := git(ctx, repo, "merge-base", "--is-ancestor", good.ID, bad.ID); err != nil {
		return nil, fmt.Errorf("--good %s is not an ancestor of --bad %s; swap them, or name a good commit in bad's history", good.Short, bad.Short)
	}
	commits, err := logOf(ctx, repo, "--first-parent", "--reverse", good.ID+".."+bad.ID)
	if err != nil {
		return nil, err
	}
	// On the first-parent line, the commit after good has good as its
	// first parent; otherwise good came in through a merge's second parent.
	if len(commits) > 0 {
		parent, err := git(ctx, repo, "rev-parse", commits[0].ID+"^1")
		if err == nil && strings.TrimSpace(string(parent)) != good.ID {
			return nil, fmt.Errorf("--good %s is not on --bad %s's first-parent history (it was merged in from a side branch); name the merge's first parent or an older commit", good.Short, bad.Short)
		}
	}
	return commits, nil
}

// Dirty tells whether the clone's work tree or index differ from HEAD
// (untracked files aside): a build at a revision uses committed content
// only, which the user should hear.
func Dirty(ctx context.Context, repo string) bool {
	out, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=no")
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// Describe is `git describe --tags --always` of a commit, as CLN's
// Makefile would name its version in a checkout of it.
func Describe(ctx context.Context, repo, commit string) string {
	out, err := git(ctx, repo, "describe", "--tags", "--always", "--abbrev=7", commit)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// HasFile tells whether commit holds path (a file or folder).
func HasFile(ctx context.Context, repo, commit, path string) bool {
	_, err := git(ctx, repo, "cat-file", "-e", commit+":"+path)
	return err == nil
}

// Show is the content of path at commit.
func Show(ctx context.Context, repo, commit, path string) ([]byte, error) {
	out, err := git(ctx, repo, "show", commit+":"+path)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %v", path, ShortID(commit), err)
	}
	return out, nil
}

// ShortID is the first 12 characters of a commit id (or any hash), as
// messages and reports name it.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Order is every commit of the clone's refs by position, oldest first
// (topological: a parent always before its children).
func Order(ctx context.Context, repo string) (map[string]int, error) {
	out, err := git(ctx, repo, "rev-list", "--topo-order", "--reverse", "--all")
	if err != nil {
		return nil, err
	}
	pos := map[string]int{}
	for i, id := range strings.Fields(string(out)) {
		pos[id] = i
	}
	return pos, nil
}
