//go:build !linux

package chrome

// Without /proc only an exit that was waited for is seen.
func procDying(int) bool { return false }
