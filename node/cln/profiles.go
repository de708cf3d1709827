package cln

import (
	"fmt"

	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/nodespec"
)

// Profile resolves a config profile. CLN has one database here (sqlite3,
// its default) and no tuning profile yet: `default` is CLN's own settings,
// and the harness's needs (HarnessFlags) stay outside profiles.
func Profile(profile, db, version string) (node.Profile, error) {
	if profile != "" && profile != nodespec.ProfileDefault && profile != nodespec.ProfileTuned {
		return node.Profile{}, fmt.Errorf("profile %q: CLN nodes have only %q (CLN's own settings)", profile, nodespec.ProfileDefault)
	}
	if db != "" && db != nodespec.DBBbolt && db != "sqlite" {
		return node.Profile{}, fmt.Errorf("db %q: CLN nodes run on sqlite3, their default", db)
	}
	return node.Profile{DBBackend: "sqlite3"}, nil
}
