package sdk

// ActAsNonHelper makes the sessions started until restore is called act
// as those of a program that did not call Init.
func ActAsNonHelper() (restore func()) {
	was := helperServed.Swap(false)
	return func() { helperServed.Store(was) }
}
