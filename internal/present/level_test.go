package present

// String names a level in test messages: notice, warning or error.
func (l Level) String() string {
	switch l {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "notice"
}
