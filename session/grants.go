package session

import "context"

// credit buys what an action's intent declares. Grants and consent land
// here (the guard's judgement); until then nothing is asked and nothing is
// credited, and the guard lets every request through.
func (m *Manager) credit(ctx context.Context, a *Action) error { return nil }

// releaseCredits hands back an action's unused single-use scopes.
func (m *Manager) releaseCredits(a *Action) {}
