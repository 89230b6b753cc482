"""`finance-cause`: why a T1 finance answer got its verdict, from the tool calls behind it.

    instrument.py  which instrument the question asks for, and which one a call fetched
    tools.py       what a call returned: its records or text, the asked quantity's value in
                   them, judged by the finance rubric's own precision rule
    evaluator.py   the six causes in their written order, the evidence and the reason line
"""

from .evaluator import CAUSES, NAME, FinanceCause

__all__ = ["CAUSES", "NAME", "FinanceCause"]
