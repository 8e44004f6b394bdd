package hyperquicksort

import (
	"slices"
	"strconv"
	"strings"
)

// Median is Algorithm 1 line 10, pivo ← median(list): the element at index
// (len−1)/2 of the sorted list (the lower median), and false for an empty
// list.
//
// Ambiguity: the prose says "o número médio obtido a partir da sua lista"
// (the mean) while the code says median(list); the code is followed (spec
// §3.8). The pivot only balances the lists; any value keeps the sort
// correct.
func Median(sorted []int32) (int32, bool) {
	if len(sorted) == 0 {
		return 0, false
	}
	return sorted[(len(sorted)-1)/2], true
}

// Split is create_lists (Algorithm 1 line 13) over a sorted list: lower
// holds the elements ≤ pivot, higher those > pivot; both are sorted and
// share no memory with sorted. Without a pivot (ok false: the cluster
// root's list was empty) every element is lower.
//
// Ambiguity: the thesis puts elements "maiores" and "menores" than the
// pivot in the two lists and says nothing of equal ones; they go to the
// lower list (spec §3.8).
func Split(sorted []int32, pivot int32, ok bool) (lower, higher []int32) {
	if !ok {
		return slices.Clone(sorted), nil
	}
	k, _ := slices.BinarySearch(sorted, pivot+1)
	if pivot == maxInt32 {
		k = len(sorted)
	}
	return slices.Clone(sorted[:k]), slices.Clone(sorted[k:])
}

const maxInt32 = int32(^uint32(0) >> 1)

// Union is union (Algorithm 1 lines 18 and 22) followed by quicksort (line
// 25): the sorted merge of two sorted lists, a new slice.
func Union(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// FormatValues formats a list for a person: "[1, 2, 3]", "[]" when empty.
func FormatValues(vs []int32) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(int(v))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FormatLists formats lists by rank: "[1, 2] [3] []".
func FormatLists(ls [][]int32) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = FormatValues(l)
	}
	return strings.Join(parts, " ")
}
