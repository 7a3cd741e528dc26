// Package budgetcheck holds karpgen's reading of disruption budgets
// (internal/budget) to Karpenter's own: its tests ask upstream's
// Budget.IsActive about every minute of a week and compare.
package budgetcheck
