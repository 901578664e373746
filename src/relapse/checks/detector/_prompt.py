"""
The detector's input text: LettuceDetect's prompt, word for word.

A LettuceDetect model was trained on the prompt its ``PromptUtils.format_context``
writes (KRLabsOrg/LettuceDetect, ``lettucedetect/detectors/prompt_utils.py`` and
``lettucedetect/prompts/*.txt``, MIT licence, copyright 2025 KR Labs): the
question and the numbered passages (a question-answering prompt) or the text
alone (a summary prompt). A different wording would move the model's inputs
away from what it learnt, so the templates below are copied exactly, trailing
spaces and newlines included.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

__all__ = ["LANGUAGES", "format_context", "passage_line"]

#: The word before each passage's number, per language code.
_PASSAGE_WORD: dict[str, str] = {
    "en": "passage",
    "de": "Passage",
    "fr": "passage",
    "es": "pasaje",
    "it": "brano",
    "pl": "fragment",
    "cn": "段落",
    "hu": "szövegrészlet",
}

#: The question-answering prompt, per language code.
_QA: dict[str, Template] = {
    "en": Template(
        "Briefly answer the following question:\n${question}\nBear in mind that your response"
        " should be strictly based on the following ${num_passages} passages:\n${context}\n"
        "In case the passages do not contain the necessary information to answer the question,"
        ' please reply with: "Unable to answer based on given passages."\noutput:'
    ),
    "de": Template(
        "Beantworte die folgende Frage kurz:\n${question}\nBeachte, dass deine Antwort nur auf"
        " den folgenden ${num_passages} Passagen basieren soll:\n${context}\nFalls die Passagen"
        " nicht die notwendigen Informationen zur Beantwortung der Frage enthalten, antworte"
        ' bitte mit: "Kann aufgrund der gegebenen Passagen nicht beantwortet werden."\nAusgabe:'
    ),
    "fr": Template(
        "Réponds brièvement à la question suivante :\n${question}\nNote que ta réponse doit être"
        " basée uniquement sur les ${num_passages} passages suivants :\n${context}\nSi les"
        " passages ne contiennent pas les informations nécessaires pour répondre à la question,"
        " réponds s'il te plaît par : \"Impossible de répondre sur la base des passages"
        ' fournis."\nSortie : '
    ),
    "es": Template(
        "Responde a la siguiente pregunta brevemente:\n${question}\nTen en cuenta que tu"
        " respuesta debe basarse únicamente en los siguientes ${num_passages} pasajes:\n"
        "${context}\nSi los pasajes no contienen la información necesaria para responder a la"
        ' pregunta, por favor responde con: "No se puede responder con base en los pasajes'
        ' proporcionados."\nSalida: '
    ),
    "it": Template(
        "Rispondi alla seguente domanda in modo breve:\n${question}\nTieni presente che la tua"
        " risposta deve basarsi solo sui seguenti ${num_passages} passaggi:\n${context}\nSe i"
        " passaggi non contengono le informazioni necessarie per rispondere alla domanda, per"
        ' favore rispondi con: "Non può essere risposto in base ai passaggi forniti."\n'
        "Risposta:\n"
    ),
    "pl": Template(
        "Zwięźle odpowiedz na następujące pytanie:\n${question}\nPamiętaj, że Twoja odpowiedź"
        " powinna opierać się wyłącznie na następujących ${num_passages} fragmentach:\n"
        "${context}\nJeśli fragmenty nie zawierają informacji niezbędnych do udzielenia"
        ' odpowiedzi na pytanie, odpowiedz: "Nie można odpowiedzieć na podstawie podanych'
        ' fragmentów."\noutput: '
    ),
    "cn": Template(
        "请简短回答以下问题：\n${question}\n请注意，您的回答应严格基于以下${num_passages}段落：\n"
        '${context}\n如果段落中不包含回答问题所需的信息，请回复："基于给定段落无法回答。"\n输出：\n'
    ),
    "hu": Template(
        "Röviden válaszolj az alábbi kérdésre:\n${question}\nVedd figyelembe, hogy a válaszod"
        " kizárólag az alábbi ${num_passages} szövegrészletre támaszkodjon:\n${context}\nHa a"
        " szövegrészletek nem tartalmazzák a kérdés megválaszolásához szükséges információt,"
        ' válaszolj így: "Nem tudok válaszolni a megadott szövegrészletek alapján."\noutput:'
    ),
}

#: The summary prompt (no question), per language code.
_SUMMARY: dict[str, Template] = {
    "en": Template("Summarize the following text:\n${text}\noutput:"),
    "de": Template("Fasse den folgenden Text zusammen:\n${text}\nAusgabe:\n"),
    "fr": Template("Résume le texte suivant :\n${text}\nSortie : "),
    "es": Template("Resume el siguiente texto:\n${text}\nSalida: "),
    "it": Template("Riassumi il seguente testo:\n${text}\nRisposta: "),
    "pl": Template("Streść następujący tekst:\n${text}\nWynik: "),
    "cn": Template("请总结以下文本：\n${text}\n输出：\n"),
    "hu": Template("Foglalja össze az alábbi szöveget:\n${text}\noutput:\n\n\n"),
}

#: The language codes LettuceDetect publishes prompts for.
LANGUAGES = frozenset(_PASSAGE_WORD)


def passage_line(passage: str, number: int, lang: str) -> str:
    """One passage as the prompt writes it: ``"passage 2: <text>"`` (``number`` from 1)."""
    return f"{_PASSAGE_WORD[lang]} {number}: {passage}"


def format_context(passages: Sequence[str], question: str | None, lang: str) -> str:
    """
    The prompt for ``passages`` and ``question``, as LettuceDetect writes it.

    Args:
        passages: The chunk texts, numbered from 1 in this order.
        question: The question, or None for the summary prompt.
        lang: A code of :data:`LANGUAGES`.

    Returns:
        The prompt text; the answer is not part of it (it is the tokenizer's second sequence).
    """
    block = "\n".join(passage_line(p, i + 1, lang) for i, p in enumerate(passages))
    if question is None:
        return _SUMMARY[lang].substitute(text=block)
    return _QA[lang].substitute(question=question, num_passages=len(passages), context=block)
