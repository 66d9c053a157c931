package corpus

// UsageError is a request that cannot be answered as asked; exit 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode makes a bad request exit 2.
func (e *UsageError) ExitCode() int { return 2 }
