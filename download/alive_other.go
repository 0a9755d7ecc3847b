//go:build !unix

package download

// alive cannot be told here: every incoming directory is left alone.
func alive(int) bool { return true }
