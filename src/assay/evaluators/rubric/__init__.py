"""The executable finance rubric: FinSearchComp's T1 judge rules done in code."""
