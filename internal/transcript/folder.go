package transcript

import "path/filepath"

// StartedIn says whether the session was started in the working
// directory cwd. A session whose header cannot be read says nothing of
// its folder; the cwd subfolder its file lies in does.
func (s Summary) StartedIn(cwd string) bool {
	cwd = filepath.Clean(cwd)
	if s.Cwd != "" {
		return filepath.Clean(s.Cwd) == cwd
	}
	return filepath.Base(filepath.Dir(s.Path)) == cwdKey(cwd)
}
