package test

import "github.com/lender/disbursementd/domain"

func catalogue() *domain.Catalogue { return domain.DefaultCatalogue() }
