"""`hub eval web` (HotpotQA over a closed local web) and `hub eval verify` (fact-verification cases)."""
