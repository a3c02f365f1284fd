"""A user's own sentences pasted around a log: which of them suppose, expect or deny an out-of-memory rather than
report one. Pure.

Only out-of-memory words that no engine owns (PyTorch's, CUDA's, a bare "OOM") are read this way: an engine's own
message is never a supposition. A line is split into clauses (sentences, and the parts of one joined by "but",
"however", ...): "It should fit in 24 GB, but I get CUDA out of memory" reports one, "an OOM should never occur" and
"I expect to see no out of memory errors" do not.
"""

from __future__ import annotations

import re

from ..engines.generic import OOM_WORDS, WORKS_NOW_BEFORE

I = re.IGNORECASE

#: any out-of-memory word no engine owns
OOM_ANY = re.compile("|".join(f"(?:{w})" for w in OOM_WORDS), I)
#: where a line splits into clauses: after a sentence's end, or before a word that turns it ("but", "however")
#: (the spaces before the word are read from their first only: from each of a long run's they are quadratic)
_CLAUSE = re.compile(r"(?<=[.!?;])\s+|(?:,|(?<![\s,]))\s+\b(?:but|however|yet|although|though|whereas|while)\b,?\s+|"
                     # (and a dash set off by spaces: "exhausts unified memory and kills the worker — no traceback, no
                     # OOM record" says two things)
                     r"(?<!\s)\s+[\u2014\u2013]\s+|(?<!\s)\s+--?\s+|"
                     # (and a next event: "I worried about OOM, and then it crashed with CUDA out of memory")
                     r"(?:,\s*|(?<![\s,])\s+)and\s+then\s+|,\s*then\s+|"
                     # (and a relative clause set off by a comma, which says a thing of its own: "we are encountering a
                     # \"CUDA out of memory\" error, which theoretically shouldn't happen")
                     r",\s+(?=which\b)|"
                     r"(?<=[。！？；，])|但是|不过", I)
_OOM_NAME = (r"(?:OOMs?(?![A-Za-z0-9_])|OOM-?ing|OOM-?(?:ed|'d)(?![A-Za-z0-9_])|out[- ]of[- ]memory|OutOfMemory|"
             r"run(?:s|ning)? out of (?:\w+ )?(?:memory|VRAM\b)|out of (?:GPU |video |graphics )?VRAM\b)")
#: a writer's words that they no longer meet what follows ("I no longer get", "never again hit"), and that an error is
#: not met any more ("I don't get this OOM anymore")
_NO_LONGER = (r"\b(?:no longer|not any ?more|never again)\s+(?:get|gets|see|sees|hit|hits|have|has|encounter|run into|"
              r"receive)\b")
_NOT_ANYMORE = (r"\b(?:don['\u2019]?t|do not|doesn['\u2019]?t|does not)\s+(?:get|see|hit|have)\s+(?:this|that|the|these|those|"
                r"any)\s+(?:\w+\s+)?(?:errors?|OOMs?|crash(?:es)?)\s+(?:any ?more|again)\b")
#: a clause that supposes, expects or denies: what the user expects or hopes, what should (not) happen, the
#: out-of-memory itself denied ("no OOM", "never runs out of memory", "would not OOM", "didn't run out of memory"),
#: and advice before it ("if you hit OOM", "to avoid OOM", "may cause OOM")
_SUPPOSED = re.compile(
    r"\b(?:expects?|(?<!as )expected|expecting|expectations?|hop(?:e|es|ed|ing)|suppos(?:e|ed|edly)|assum(?:e|ed|ing)|"
    r"in theory|theoretically|ideally|should(?:n't)?)\b|"
    r"(?:\b(?:no|not|never|without|nor|zero|no longer)|\b(?:would|could|will|might|may|can|does|did|do|is|was|were|are|"
    r"wo|ca)"
    r"(?:\s+not|n['\u2019]?t|\s+never))\s+(?:\w+\s+){0,3}?" + _OOM_NAME + "|"
    # a worry of one to come ("I just worry it will OOM as soon as more users come", "afraid it might run out of
    # memory", "担心以后 OOM")
    # (or a worry of one now, which guesses: "I'm worried the card is running out of VRAM or so")
    r"\b(?:worr(?:y|ied|ies|ying)|afraid|concerned|fear(?:s|ed|ing|ful)?|nervous)\b[^.;!?]{0,60}?" + _OOM_NAME + "|"
    # another's word for it, hearsay ("Someone in another issue said lmdeploy goes OOM under load", "In the discord
    # someone said \"kobold OOMs after a while\"", "I read that it runs out of memory on long chats")
    r"\b(?:someone|somebody|people|others|(?:a|my|our) (?:friend|colleague|coworker|user|boss)|users)\b[^.;!?]{0,60}?"
    r"\b(?:said|says|say|told|tells|claimed|claims|reported|reports|mentioned|wrote|warned)\b[^.;!?]{0,80}?" + _OOM_NAME
    + "|" r"\b(?:I(?:'ve| have)? (?:read|heard)|reportedly|according to|rumou?rs?)\b[^.;!?]{0,80}?" + _OOM_NAME + "|"
    r"担心[^。；！？.;!?]{0,30}?(?:OOM|爆显存|显存不足|内存不足|out of memory)|"
    # a program's forecast for a setting ("Unsloth: Standby mode is enabled. However your setting of
    # `gpu_memory_utilization` will OOM." then "Changing `gpu_memory_utilization` to 0.8."): what it would do, changed
    r"\b(?:setting|value|choice)s? (?:of|for)\b[^.;!?]{0,60}?\bwill\s+" + _OOM_NAME + "|"
    # an error said to be gone ("after upgrading I no longer get the following error: `torch.OutOfMemoryError ...`", "I
    # don't get this OOM anymore")
    + _NO_LONGER + r"[^.;!?]{0,60}?(?:" + _OOM_NAME + r"|\berrors?\b)|" + _NOT_ANYMORE + "|"
    # a doubt in the first person ("I don't think it ran out of memory")
    r"\b(?:don['\u2019]?t|do not|doesn['\u2019]?t|does not) (?:think|believe)\b|"
    # ... or the out of memory the subject of a condition ("If out-of-memory error occurs during cudagraph capture,
    # consider ...", vLLM's own hint at INFO; "if an OOM happens"): not "if I use 32k context I get OOM"
    r"\bif (?:an? |the |any )?(?:CUDA |GPU )?" + _OOM_NAME + "|"
    # ... or a condition, or a question, whether something will or would run out ("warn users if the combination
    # will OOM", "check whether a batch of 64 would run out of memory")
    r"\b(?:if|whether|unless)\b[^.;!?]{0,80}?\b(?:will|would|could|might|may|can)\s+(?:\w+\s+)?" + _OOM_NAME + "|"
    # ... or things told apart by whether they would ("skip cuda graphs that will oom", "configs which would OOM")
    r"\b(?:that|which)\s+(?:will|would|could|might|may)\s+(?:likely\s+|probably\s+)?" + _OOM_NAME + "|"
    r"(?:\bif you(?:['\u2019]re | (?:are |run |hit |encounter |see |get ))|\bin case (?:you )?(?:run into|hit|encounter|see|get)\b|"
    r"\bmay (?:cause|lead to|result in)|\bmight |"
    # (ggml-opencl's hint after any OpenCL error: "You may be out of VRAM. Please check if you have enough.")
    r"\bmay be |\bmaybe |"
    # an inference hedged ("the error seems to suggest running out of memory", "looks like an OOM", "suggests OOM")
    # (not "what it looks like when the OOM check fails": how the failure below looks)
    r"\b(?:seems?|seemed|appears?|appeared|looks?|looked)\s+(?:to\s+(?:suggest|indicate|be|point to)|like)\b(?!\s+when\b)|"
    r"\b(?:suggests?|suggesting|indicates?|implies)\b|"
    # (and a purpose: "to make sure that OOM happens during profiling", "so that it never OOMs", "to ensure no OOM")
    r"\bmake sure\b|\bensur(?:e|es|ing)\b|\bso that\b|\bin order (?:to|that)\b|"
    r"\bcould (?:cause|lead|result in)|\bcan (?:cause|lead to|result in)|\bwould (?:cause|lead to|result in)|"
    # (a consequence told as possible: "..., potentially resulting in an out-of-memory (OOM) error")
    r"\bpotentially |\bto avoid|\bavoid(?:ing|s)? |\bprevent(?:s|ing|ed)? |\brisk of|\bin case of|"
    # (a risk named, "If it is too low, you risk out-of-memory (OOM) errors later"; a procedure's end point, "increase it
    # in steps of 0.01 until you encounter OOM errors": a tuning guide's words, no failure seen)
    r"\b(?:you|we|they|it) risks? |\brisking |\buntil (?:you|it|they|we) (?:encounter|hit|see|get|run into|reach)(?:s|es)?\b)"
    r"[^.;]{0,60}?" + _OOM_NAME + "|"
    # a guess at an out-of-memory ("It's probably an OOM", "I believe it is running out of memory", "I suspect an OOM",
    # "I'm pretty sure it's running out of memory"); not a stated one with a guess at its cause after it ("it crashed
    # with CUDA out of memory, probably because of the long prompt")
    r"\b(?:probably|possibly|perhaps|likely|presumably|suspect(?:s|ed)?|think|believe|guess|(?:pretty|fairly|quite) sure)"
    r"\s+(?:(?:it(?:'s| is| was)?|this(?:'s| is| was)?|that(?:'s| is)?|there(?:'s| is)|an?|the|just|simply|maybe|"
    r"probably|we(?:'re| are)|I(?:'m| am))\s+){0,3}" + _OOM_NAME + "|"
    # ... or one called false ("leading to false OOM errors", "a spurious OOM", "bogus out-of-memory reports"): an
    # accounting's error, not memory running out
    # (also set off as code: "fails with a false `OutOfMemoryError` — even though the GPU reports 11.33 GiB free")
    r"\b(?:false|spurious|fake|bogus|phantom|erroneous|incorrect)\s+[`'\x22*]{0,2}(?:CUDA\s+|GPU\s+|torch\.)?" + _OOM_NAME
    + "|"
    # ... or a guess named as one, the out of memory in the clause it opens ("My strong suspicion is the process is
    # being killed under memory pressure (OOM)", "my hunch is that the runner OOMs", "our theory: the KV cache OOMs")
    r"\b(?:(?:my|our|the) (?:strong |main |best |first |working )?(?:suspicion|hunch|guess|theory|hypothesis)|"
    r"I(?:'d| would) guess|(?:I|we) suspect)\b[^.;!?]{0,100}?" + _OOM_NAME + "|"
    # a margin to an out-of-memory, not one ("about 200MiBs from VRAM OOM at 3.75bpw, far from it at 3.0bpw")
    r"(?:\b\d[\d.,]*\s*[KMGT]i?B?s?|\bfar|\bwell)\s+(?:away\s+)?from\s+(?:\w+\s+){0,2}?" + _OOM_NAME + "|"
    # a Chinese clause that conditions, supposes, predicts, asks or denies (如果 if, 可能 maybe, 应该 should, 肯定
    # surely, 是否/会不会/吗 whether, 不/没 not; 不会出现OOM "no OOM comes up", 而不会OOM "without OOM")
    r"如果|要是|假如|可能|也许|应该|肯定|是否|会不会|吗|？|[不没未无](?:会|是|再|有)?(?:出现|发生|再|报|遇到|看到)?\s*"
    r"(?:任何\s*)?(?=显存|爆显存|超(?:出|过)?显存|OOM|oom|内存不足|内存溢出|(?:CUDA\s+)?out of memory)|"
    # ... or in Japanese, denied after it ("OOMは出ていませんが", "メモリ不足は発生していません", "OOMエラーは一度も出ていません"),
    # or kept away ("OOMを防ぐために", "OOMを避けるため")
    r"(?:OOM|out of memory|メモリ不足)(?:\s*エラー)?\s*(?:は|も|が)?[^。！？\n]{0,12}?(?:出て|起きて|発生して|起こって)"
    r"(?:い)?ません|(?:OOM|メモリ不足)(?:\s*エラー)?を(?:防|避け|回避)|"
    # ... in Korean ("OOM은 발생하지 않았습니다", "OOM이 나지 않습니다", "OOM 없음", "OOM을 방지하기 위해", "피하기 위해")
    r"(?:OOM|메모리 부족|out of memory)(?:\s*오류)?(?:은|는|이|가|도)?\s*(?:발생하지|나지|뜨지|생기지)\s*않|"
    r"(?:OOM|메모리 부족|out of memory)(?:\s*오류)?(?:은|는|이|가|도)?\s*없|"
    r"(?:OOM|메모리 부족)(?:\s*오류)?(?:을|를)\s*(?:방지|피하|막)|"
    # ... in German ("damit kein OOM auftritt", "Es gibt keinen OOM", "um OOM zu vermeiden"), French ("Pas d'OOM"),
    # Spanish ("ningún error de CUDA out of memory", "Nunca vi un error de out of memory")
    r"\b(?:kein|keine|keinen|keinem|nie|niemals|aucun|aucune|jamais|ningún|ninguna|ninguno|nunca|sin)\s+"
    r"(?:\w+\s+){0,3}?" + _OOM_NAME + r"|\bpas d['\u2019]\s*" + _OOM_NAME + "|" + _OOM_NAME
    + r"[^.;!?]{0,30}?\bzu vermeiden\b|"
    # ... or said never to have happened, after it ("CUDA out of memory never happened", "OOM did not occur")
    + _OOM_NAME + r"\s+(?:errors?\s+)?(?:never|did(?:n['\u2019]t| not)|does(?:n['\u2019]t| not)|has(?:n['\u2019]t| not))\s+"
    r"(?:\w+\s+)?(?:happen|occur|appear|show|come)|"
    # ... or kept away, in other languages than English ("# para evitar OOM", "防止OOM", "以避免OOM")
    r"\b(?:para|pour|per) (?:evitar|éviter|eviter|evitare)\b[^.;]{0,40}?" + _OOM_NAME + r"|(?:防止|避免|以免|以防)[^。；;]{0,20}?"
    r"(?:OOM|爆显存|显存不足|内存不足|out of memory)",
    I)


#: a user's own words: the first person, or an engine's words quoted ("it dies with the \"Capture cuda graph
#: failed\" error", `...`)
_USER = re.compile(r"(?<![\w'\[(<])(?:I|I'm|I've|I'd|[Mm]y|[Ww]e|[Oo]ur|[Mm]e)(?![\w'\])>])|"
                   # (a lower-case "i" as many write it, where a verb follows: not a loop's variable, "for i in")
                   r"(?<![\w'\[(<.])i(?:'m|'ve|'d| (?:am|was|have|had|can|can't|cannot|could|get|got|run|ran|tried|try|"
                   r"want|need|think|use|used|see|saw|load|loaded|imagine|must|will|would|don't|didn't|do|start|"
                   r"started|set|changed|installed|downloaded|followed|also|just|still|only))\b|"
                   # (words of at most 256 characters: a word read to a long line's end from each quote is quadratic in it)
                   r"[\"\u201c`]\s*\S{1,256}(?:\s+\S{1,256})+?\s*[\"\u201d`]|"
                   # Chinese: the first person (我, 我们), or a sentence of clauses with full-width marks (two or more
                   # of ，。；！？), which programs' one-line messages do not print (the first clause's two characters
                   # before its mark are enough, and anchor it: a clause read from every start is quadratic in a long
                   # line without a mark)
                   r"我|[^，。；！？\n]{2}[，。；！？][^，。；！？\n]{2,}[，。；！？]")


#: markdown emphasis a user writes in a sentence ("the **second** request"; not `__x__`, which is Python's `__init__`)
_EMPHASIS = re.compile(r"\*\*[^*\s][^*]*\*\*")


#: a program's own message that quotes a value in backticks, as Rust programs print errors (mistral.rs "Model failed
#: with error `DriverError(CUDA_ERROR_OUT_OF_MEMORY, ...)`. Please raise an issue.", a panic's "`Result::unwrap()` on
#: an `Err` value")
_PROGRAM_QUOTE = re.compile(r"\b(?:failed|error|errored) with (?:error|status) `|\bon an `Err` value\b|\bpanicked at\b")


def written_by_user(text: str, prefixed: bool) -> bool:
    """The line is a user's sentence, not a program's: it has no log prefix (`prefixed`: whether it has one) and
    speaks in the first person, quotes an engine's words, or is a sentence (6+ words) with markdown emphasis. Its step
    words ("Loading", "Capturing") then name no step the engine was in. A program's message that quotes a value in
    backticks (`_PROGRAM_QUOTE`) is the program's."""
    if prefixed:
        return False
    m = _USER.search(text)
    if m and m.group(0)[:1] in "\"\u201c`" and _PROGRAM_QUOTE.search(text) and not _USER.search(text.replace(m.group(0), " ")):
        m = None
    return bool(m or _EMPHASIS.search(text) and len(text.split()) >= 6)


def clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE.split(text) if c and c.strip()]


def clause_at(text: str, at: int) -> int:
    """The index of the clause of `text` (split as `clauses` splits it) that character `at` is in."""
    return sum(1 for c in _CLAUSE.finditer(text) if c.end() <= at)


#: a failure the line tells as past and fixed ("Before, I had `torch.OutOfMemoryError` at startup, but after setting
#: --max-model-len 8192 it works now", "It used to OOM; that is solved since 0.6")
_PAST_FIXED = re.compile(r"\b(?:before|previously|earlier|used to|at first|initially|originally)\b(?:(?!\.\s)[^!?]){0,200}?"
                         r"\b(?:(?:it |this |everything )?works?(?: fine| again)? now|now (?:it )?works|"
                         r"(?:is|was|got|has been) (?:fixed|solved|resolved|gone)|no longer (?:happens|occurs|OOMs?|crashes))\b|"
                         # ... the other way round ("This works now, where before it ran out of memory"), or a fix that
                         # ended it ("Thanks, that fixed the OOM")
                         + WORKS_NOW_BEFORE + "|"
                         r"\b(?:fixed|solved|resolved) (?:the|my|this|that) (?:OOM|out[- ]of[- ]memory|memory (?:issue|error|"
                         r"problem))",
                         re.I)
#: ... or an error the writer says they no longer get ("after upgrading to 0.8.5 I no longer get the following error:
#: `torch.OutOfMemoryError: ...`", "I don't get this OOM anymore")
_GONE = re.compile(_NO_LONGER + "|" + _NOT_ANYMORE, re.I)
#: ... or a failure worked around by a setting now in use ("the defaults OOM on our box, so we changed to GMU 0.93 and
#: max-num-seqs 2", "官方那组参数会 OOM，所以改成了 GMU 0.93"): not where the change did not help ("so I lowered it to 0.8
#: but it still OOMs", "所以改成了 0.8，还是 OOM")
_WORKED_AROUND = re.compile(r"(?:\bOOM\w*|\bout of memory\b|\bcrash\w*|爆显存|显存不足|内存不足)[^.!?。！？]{0,40}?"
                            r"(?:\b(?:so|therefore|hence|thus)\s+(?:I|we)\s+(?:changed|switched|lowered|reduced|moved|"
                            r"dropped|went)(?: it)? (?:to|down to)\b|(?:所以|因此|于是)(?:我们|我)?(?:就)?(?:改成|改为|换成|调成|调到|降到|"
                            r"设为|设置为|改用))"
                            # (to the sentence's end: a decimal point, "0.85", ends none)
                            r"(?!(?:[^.!?。！？]|\.(?=\d))*(?:\bstill\b|\bbut\b|\bhowever\b|\bagain\b|\bsame\b|还是|仍然|依然|"
                            r"但是|但|又))",
                            re.I)


#: a clause that tells what could happen, not what did ("it is possible for users to crash the server at inference
#: time by sending in large images", "in principle a request could fill it")
_POSSIBLE = re.compile(r"\bit(?:'s|\u2019s| is| was| would be) (?:\w+ )?possible\b|\bpossible for\b|\bin principle\b|"
                       r"\bin theory\b|\btheoretically\b|\bhypothetically\b|"
                       # (or one of two the report cannot tell between: "I honestly don't know if it crashed while it
                       # was starting up or while serving traffic", "can't tell if it died while serving or ...")
                       r"\b(?:(?:do|does|did)(?:n['\u2019]?t| not) (?:really |honestly )?know|(?:can['\u2019]?t|cannot|can not|couldn['\u2019]?t|could not) "
                       r"(?:really )?(?:tell|say|see)|(?:am |i['\u2019]m )?not sure|no idea|unclear)\b[^.;!?]{0,40}?"
                       r"\b(?:if|whether|when)\b", I)


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])")


#: a sentence about another version or an earlier time than the run shown ("I successfully loaded big models on
#: ollama-rocm < 0.30", "it used to load fine", "with older builds the model loaded")
_ELSEWHEN = re.compile(r"\bused to\b|\bpreviously\b|\bin the past\b|\b(?:older|earlier|previous|prior) (?:versions?|"
                       r"releases?|builds?)\b|(?:[<\u2264]=?|\bbefore|\bprior to|\bup to) ?v?\d+\.\d+\b", I)


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    start = 0
    for c in _SENTENCE_END.finditer(text):
        if c.start() > at:
            return start, c.start()
        start = c.end()
    return start, len(text)


#: a modal before a step's words, which tells what can be done, not what this run did ("however the model can be
#: successfully loaded onto GPUs with huggingface transformers", "it could be loaded fine last week")
_COULD_BE = re.compile(r"\b(?:can|could|would|should|might|may)\s+(?:\w+\s+){0,2}?be\s+(?:\w+\s+)?$", I)


def could_be_at(text: str, at: int) -> bool:
    """The words just before character `at` are a modal and "be" (`_COULD_BE`): what the step after them names is
    what can happen, not what happened."""
    return bool(_COULD_BE.search(text[max(0, at - 48):at]))


def possible_only(text: str, at: int) -> bool:
    """The sentence of `text` around character `at` tells what could happen (`_POSSIBLE`), not what did."""
    start, end = _sentence_around(text, at)
    return bool(_POSSIBLE.search(text, start, end))


#: a denial just before the words at a point ("not while sending concurrent requests", "never under load", "without
#: any request"): the words name what did not happen
_DENIED_BEFORE = re.compile(r"(?:\b(?:not|never|no|without|nor)|n['\u2019]t)[^\w.;:!?,]+(?:\w+[^\w.;:!?,]+){0,2}$", re.I)


def denied_at(text: str, at: int) -> bool:
    """The words of `text` at character `at` are denied by the few words just before them (`_DENIED_BEFORE`)."""
    return bool(_DENIED_BEFORE.search(text[max(0, at - 30):at]))


def elsewhen(text: str, at: int) -> bool:
    """The sentence of `text` around character `at` is about another version or an earlier time (`_ELSEWHEN`)."""
    start, end = _sentence_around(text, at)
    return bool(_ELSEWHEN.search(text, start, end))


#: a report's words that a failure was the same as one told before ("Crashed as well with a very similar backtrace",
#: "same error again with the 13B model", "it fails the same way")
_SAME_AGAIN = re.compile(r"\bas well\b|\bagain\b|\blikewise\b|\bthe same (?:way|thing|error|crash|issue|problem|result)\b|"
                         r"\bsame (?:error|crash|issue|problem|result|backtrace|trace)\b|"
                         r"\b(?:a |an )?(?:very )?similar (?:error|crash|backtrace|trace|issue|problem|result)\b|"
                         r"\btoo\s*[.!]?\s*$", re.I)


def same_again(text: str) -> bool:
    """The report's words tell a failure as the same as one told before (`_SAME_AGAIN`)."""
    return bool(_SAME_AGAIN.search(text))


#: ... the change told first, the out-of-memory as its reason ("Notably, I had to reduce 1 layer on CUDA 2 (compared to
#: ...), as now CUDA 2 was getting OOM", "we needed to lower -ngl to 40 because the 70B went OOM"): what the writer
#: changed before the run shown; not where the change did not help ("I had to lower it, since it OOMed, but it still
#: crashes")
_CHANGED_FOR = re.compile(r"\b(?:I|we)\s+(?:had|needed|have|was forced|were forced)\s+to\s+(?:\w+\s+){0,2}?(?:reduce|lower|"
                          r"decrease|drop|remove|offload|move|cut|shrink|limit|disable|turn off|switch|use (?:fewer|less|a "
                          r"smaller))\b(?:[^.!?。！？]|\.(?=\S)){0,240}?\b(?:as|because|since)\b(?:(?!\bOOM|\bout of memory)(?:[^.!?。！？]|"
                          r"\.(?=\S))){0,60}(?:\bOOM\w*|\bout of memory\b)(?!(?:[^.!?。！？]|\.(?=\d))*(?:\bstill\b|\bbut\b|"
                          r"\bhowever\b|\bagain\b|\banyway\b|\bnow (?:it|I|we)\b|\bOOM|\bout of memory\b))", re.I)


def says_gone(text: str) -> bool:
    """A person's line says an error is one they no longer get (`_GONE`): "With --max-model-len 16384 I no longer get
    the following error:"."""
    return bool(_GONE.search(text))


def past_fixed(text: str) -> bool:
    """The line tells an out-of-memory as past and fixed (`_PAST_FIXED`), or worked around by a setting now in use
    (`_WORKED_AROUND`, `_CHANGED_FOR`)."""
    return bool(OOM_ANY.search(text) and (_PAST_FIXED.search(text) or _WORKED_AROUND.search(text)
                                          or _CHANGED_FOR.search(text) or _GONE.search(text)))


def supposed(text: str) -> bool:
    """Every clause of the line that holds out-of-memory words supposes, expects or denies one (and at least one
    does), or the line tells the failure as past and fixed (`_PAST_FIXED`): the line reports no failure."""
    if past_fixed(text):
        return True
    bare = _ASKED_ASIDE.sub(" ", text)
    if bare != text and not OOM_ANY.search(bare):
        return True  # (out of memory only in an aside that asks: "GPU loading failed (out of VRAM?)")
    held = [c for c in clauses(text) if OOM_ANY.search(c)]
    # (a clause that asks: "Could a 128k context cause an OOM later?"; not one that asks why it happens, which says it
    # does: "Why does the deployment encounter OOM errors when ...?")
    return bool(held) and all(_SUPPOSED.search(c) or c.rstrip().endswith("?") and (
        not (_WHY_ASKED.search(c) or _FIX_ASKED.search(c)) or _asked_after(c)) for c in held)


#: a second question after a why-question's clause ("Why does vLLM reserve 90% of VRAM, will it OOM if I start a second
#: model?"): what it asks is not taken as so
_SECOND_QUESTION = re.compile(r"[,;]\s*(?:and\s+|or\s+|so\s+)?(?:will|would|could|can|does|do|did|is|are|might|may|should)"
                              r"\s+(?:it|this|that|they|we|I|the|vLLM|a|an)\b[^,;]*$", re.I)


def _asked_after(clause: str) -> bool:
    """The clause's out of memory is only in a second question after a why-question (`_SECOND_QUESTION`)."""
    m = _SECOND_QUESTION.search(clause)
    return bool(m) and not OOM_ANY.search(clause, 0, m.start()) and bool(OOM_ANY.search(clause, m.start()))


#: an aside in parentheses that asks ("(out of VRAM?)", "(OOM maybe?)"): a guess, no failure stated
_ASKED_ASIDE = re.compile(r"\([^()\n]{0,80}\?\s*\)")
#: a question of why something happens: it takes the thing as so
_WHY_ASKED = re.compile(r"^\W*(?:Title:\s*)?(?:\[[^\]]{1,30}\]:?\s*)*why\s+(?:does|do|did|is|are|was|am|would)\b", re.I)
#: ... or of how to fix an error it names ("How to fix error like this: torch.cuda.OutOfMemoryError: CUDA out of memory
#: ?", "How can I solve the CUDA OOM when loading?"): it got that error (not one of how to avoid it, which may be ahead)
_FIX_ASKED = re.compile(r"^\W*(?:Title:\s*)?(?:\[[^\]]{1,30}\]:?\s*)*how\s+(?:to|(?:do|can|could|should)\s+(?:I|we|you))\s+"
                        r"(?:fix|solve|resolve|get rid of|debug|overcome)\b",
                        re.I)


def stated(text: str) -> str:
    """The line without its clauses that suppose, expect or deny an out-of-memory (the words in them name no step
    the server was in); the line itself where none does."""
    parts = clauses(text)
    kept = [c for c in parts if not (OOM_ANY.search(c) and _SUPPOSED.search(c))]
    return text if len(kept) == len(parts) else " ".join(kept)


#: a person's words around a crash they name that do not state it happened: a question ("Could this crash with
#: SIGSEGV ...?", "会段错误退出吗？", "...で落ちますか？"), a condition ("if I raise the context"), a denial ("It did not crash
#: with SIGSEGV", "不再段错误退出", "セグメンテーション違反では落ちませんでした"), or a crash told as past and fixed ("With 0.8.4 it
#: crashed with SIGSEGV; on 0.8.5 it is fixed")
_CRASH_ASKED = re.compile(r"[?？]\s*$|吗|か[？?]|\b(?:could|would|might|will|can|does|do|did|is)\s+(?:it|this|that|they|the "
                          r"\w+)\s+(?:\w+\s+){0,3}?(?:crash|die|fail|segfault|abort)", re.I)
_CRASH_DENIED = re.compile(r"\b(?:not|never|no longer|didn['\u2019]?t|doesn['\u2019]?t|don['\u2019]?t|won['\u2019]?t|"
                           r"wasn['\u2019]?t|isn['\u2019]?t|without)\b|不再|没有|没|不会|ませんでした|ません(?!か)|ないです|ない。",
                           re.I)
_CRASH_FIXED = re.compile(r"\b(?:is|was|got|has been|now) (?:fixed|solved|resolved|gone)\b|\bworks? (?:now|fine now)\b|"
                          r"已修复|解决了|修好了|直りました|解決しました", re.I)


def crash_not_stated(text: str) -> bool:
    """A person's line that names a crash by its class without stating that one happened: in a question, a
    condition, a denial, or as past and fixed (`_CRASH_ASKED`, `_CRASH_DENIED`, `_CRASH_FIXED`); the line's own
    sentence is read whole (the words are short)."""
    if not _PERSONS_WORDS.search(text):
        return False  # (a program's own words: "Memory access fault by GPU node-2 ... Reason: Page not present")
    at = _CRASH_WORD.search(text)
    if at is None:
        return False
    # (the crash's own sentence for a question or a condition, its own clause for a denial: "服务起来之后发第一个请求就直接
    # 段错误退出了，没有任何报错信息" denies an error message, not the crash; the whole line for a fix told after it)
    starts = [m.end() for m in _SENTENCE_STOP.finditer(text, 0, at.start())]
    stop = _SENTENCE_STOP.search(text, at.end())
    sentence = text[starts[-1] if starts else 0:stop.end() if stop else len(text)]
    begin = max([m.end() for m in _CLAUSE_STOP.finditer(text, 0, at.start())] or [0])
    clause_end = _CLAUSE_STOP.search(text, at.end())
    clause = text[begin:clause_end.start() if clause_end else len(text)]
    return bool(_CRASH_ASKED.search(sentence) or _CRASH_DENIED.search(clause) or _CRASH_FIXED.search(text)
                or re.search(r"\bif\b|如果|要是|假如", sentence, re.I))


#: a crash's class named (where `crash_not_stated` reads the words around it)
_CRASH_WORD = re.compile(r"seg(?:mentation)?[ -]?fault|SIGSEGV|SIGILL|SIGBUS|illegal (?:memory access|instruction|address)|"
                         r"bus error|段错误|非法内存访问|セグメンテーション違反|セグフォ|不正な命令|バスエラー", re.I)
#: a sentence's end, and a clause's
_SENTENCE_STOP = re.compile(r"[.!?。！？](?=\s|$)|[。！？]")
_CLAUSE_STOP = re.compile(r"[,;:，；：。！？!?]|\.(?=\s|$)")


#: words only a person writes: a pronoun, a question's or a condition's word, or Chinese and Japanese prose
_PERSONS_WORDS = re.compile(r"\b(?:I|my|me|we|our|it|this|that|could|would|will|does|did|if|mine)\b|[\u3040-\u30ff\u4e00-\u9fff]", re.I)
