"""The executable finance rubric: FinSearchComp's T1 judge rules done in code.

Its reader's modules run as Python from a checkout or a plain install; the opt-in compiled wheel
(`make wheel-compiled`, docs/rubric.md) carries them compiled with mypyc as well, and Python
imports a module's extension before its source."""
