"""CausalVerify for inspect-ai: Exp B (model-written R executed in a sandbox, scored L1-L2b+ against canonical
estimates, with a calibration arm) and Exp A (method-family and direction agreement on paper contexts)."""
