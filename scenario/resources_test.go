package scenario

import "testing"

func TestResourceParams(t *testing.T) {
	c := NewCase(nil)
	if !c.ResourceSampling() || c.Storage() != StorageDisk {
		t.Fatalf("defaults: sampling %v storage %q", c.ResourceSampling(), c.Storage())
	}
	c = NewCase([]Value{{Name: "ResourceSampling", Value: "off"}, {Name: "Storage", Value: "tmpfs"}})
	if c.ResourceSampling() || c.Storage() != StorageTmpfs || c.NetworkKey() != "Storage=tmpfs" {
		t.Fatalf("set: sampling %v storage %q key %q", c.ResourceSampling(), c.Storage(), c.NetworkKey())
	}
	for _, bad := range []Param{{Name: "Storage", Values: []string{"ssd"}}, {Name: "ResourceSampling", Values: []string{"yes"}}} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%s=%v accepted", bad.Name, bad.Values)
		}
	}
}
