package gcp

import "time"

// SetSignInTimeout replaces the sign-in's timeout for a test and returns
// the function that restores it.
func SetSignInTimeout(d time.Duration) (restore func()) {
	old := signInTimeout
	signInTimeout = d
	return func() { signInTimeout = old }
}
