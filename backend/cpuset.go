package backend

import (
	"fmt"
	"strconv"
	"strings"
)

// CPUList is a set in the kernel's list notation (0-2,5), as taskset,
// cgroups' cpuset.cpus and Docker's --cpuset-cpus read it.
func CPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
