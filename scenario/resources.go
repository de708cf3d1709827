package scenario

// Storage kinds: where a network's node data dirs live.
const (
	StorageDisk  = "disk"
	StorageTmpfs = "tmpfs"
)

// Storages are the valid values of the Storage param.
var Storages = []string{StorageDisk, StorageTmpfs}

// value is a param's value in the case, else its default.
func (c Case) value(name string) string {
	if v, ok := c.Get(name); ok {
		return v
	}
	s, _ := spec(name)
	return s.Default
}

// ResourceSampling tells whether the case samples per-actor resources
// (the ResourceSampling param, on by default).
func (c Case) ResourceSampling() bool { return c.value("ResourceSampling") != "off" }

// Storage is where the case's node data dirs live (the Storage param).
func (c Case) Storage() string { return c.value("Storage") }
