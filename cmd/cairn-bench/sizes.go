package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseCount reads a record count: a number with an optional k (thousand)
// or m (million) suffix, e.g. 2500, 10k, 1m.
func parseCount(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1000000, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 || n > 100000000/mult {
		return 0, fmt.Errorf("invalid size %q; use a positive number with an optional k or m suffix, e.g. 10k", s)
	}
	return n * mult, nil
}

// sizeLabel writes a count the short way: 10000 → 10k, 1000000 → 1m.
func sizeLabel(n int) string {
	switch {
	case n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "m"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// parseSizes reads a comma-separated list of counts.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		n, err := parseCount(part)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--sizes is empty; give sizes like 10k,100k")
	}
	return out, nil
}
