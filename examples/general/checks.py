"""A check of one's own for `assay score -e python:checks.py:concise`: the answer
states its number without a paragraph around it (True passes, False fails; a float is a
score). `item` is the item's fields as a dict (item["input"]), `answer` its text."""


def concise(item, answer, max_words=6):
    return len(answer.split()) <= int(max_words)
