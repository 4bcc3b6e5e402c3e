"""The twin operators of §3.1 on hand-written problems: determinism, invariants, edge cases."""

from __future__ import annotations

import re

import pytest

from glass_inspect.corpus.operators import (
    back_references,
    derive_seed,
    donor_run,
    entity_rename,
    identity,
    irrelevant_context,
    maths_letters,
    name_table,
    outside_maths,
    person_names,
    segment,
    sentence_reorder,
    setup_sentence,
    sole_person,
)
from glass_inspect.corpus.operators.distract import insertion_point
from glass_inspect.corpus.operators.lexicon import census_first_names, ordinary_word
from glass_inspect.corpus.operators.names import lexicon_name_here

MARCUS = (
    "Marcus' garden has 6 rows of tomato plants with 9 plants in each row. Each plant yields 7 tomatoes. "
    "Marcus sells the tomatoes in boxes of 14. How many boxes can he fill?"
)
LUCY = (
    "Lucy has three times as many stickers as Adam. Adam has 14 stickers. Lucy gives 10 stickers to Adam. "
    "How many stickers does Lucy have now?"
)
NO_NAMES = "A bakery makes 450 rolls each morning. It sells 80% of them before noon. How many rolls are left?"
DONORS = [
    ("d1", ["Ravi has 5 pens.", "He buys 2 more pens.", "What does he do?"]),
    ("d2", ["A pond holds 300 fish.", "Each fish eats 2 flakes a day."]),
    ("d3", ["Why is the sky blue?"]),
    ("d4", ["A van carries 8 crates.", "Each crate weighs 30 kilograms."]),
]


def test_derive_seed_is_stable_and_sensitive():
    assert derive_seed(0, "gsm-1", "entity_rename", 0) == derive_seed(0, "gsm-1", "entity_rename", 0)
    assert derive_seed(0, "gsm-1", "entity_rename", 0) != derive_seed(0, "gsm-1", "entity_rename", 1)
    # pinned: sha256-based, so the same on every machine and Python version
    assert derive_seed("a", 1) == int.from_bytes(__import__("hashlib").sha256(b"a\x1f1").digest()[:8], "big") >> 1


def test_same_input_and_seed_give_the_same_twin_pinned():
    twin = entity_rename(MARCUS, 7)
    assert twin == entity_rename(MARCUS, 7)
    assert twin.text == (
        "Lorenzo's garden has 6 rows of tomato plants with 9 plants in each row. Each plant yields 7 tomatoes. "
        "Lorenzo sells the tomatoes in boxes of 14. How many boxes can he fill?"
    )
    assert twin.changes == {"names": {"Marcus": "Lorenzo"}} and twin.seed == 7 and twin.operator == "entity_rename"
    shelves = "Nina's shelf holds 12 mugs. Omar's cupboard holds 4 cups. A jug holds 9 spoons. How many mugs are on Nina's shelf?"
    reorder = sentence_reorder(shelves, 7)
    assert reorder == sentence_reorder(shelves, 7)
    assert reorder.text == (
        "Omar's cupboard holds 4 cups. Nina's shelf holds 12 mugs. A jug holds 9 spoons. "
        "How many mugs are on Nina's shelf?"
    )
    assert reorder.changes == {"order": [1, 0, 2], "back_references": {}}
    # a definite reference ("The cupboard") stays after the sentence introducing it
    chain = (
        "Nina's shelf holds twice as many mugs as Omar's shelf. Omar's shelf holds 4 more mugs than the "
        "cupboard. The cupboard holds 9 mugs. How many mugs are on Nina's shelf?"
    )
    assert sentence_reorder(chain, 7) is None


def test_segment_keeps_decimals_titles_and_maths_together():
    seg = segment("James' car costs $2.50. Mr. Smith has 3 cats. How many? Give it as an integer.")
    assert seg.sentences == ("James' car costs $2.50.", "Mr. Smith has 3 cats.", "How many?", "Give it as an integer.")
    assert seg.query == 2 and seg.setup == ("James' car costs $2.50.", "Mr. Smith has 3 cats.")
    tex = segment("Let $x = 2.5. Y$ be real. Find $x$.", tex=True)
    assert tex.sentences == ("Let $x = 2.5. Y$ be real.", "Find $x$.") and tex.query == 1
    # white space between sentences is kept slot by slot
    assert segment("A b.  C d?").join(["A b.", "C d?"]) == "A b.  C d?"


def test_rename_is_consistent_with_possessives_and_changes_nothing_else():
    text = "James' dog met Janet’s cat. James and Janet went home with Mr. Jones. Where did James go?"
    twin = entity_rename(text, 3)
    names = twin.changes["names"]
    assert set(names) == {"James", "Janet", "Jones"}
    for old, new in names.items():
        assert not re.search(rf"\b{old}\b", twin.text)
        assert twin.text.count(new) == text.count(old)
    new_james = names["James"]
    possessive = f"{new_james}'" if new_james.endswith("s") else f"{new_james}'s"
    assert twin.text.startswith(possessive + " dog")
    assert f"{names['Janet']}’s cat" in twin.text  # the curly apostrophe is kept
    # undo the mapping: nothing but the names changed
    back = twin.text.replace(possessive, "James'")
    for old, new in names.items():
        back = back.replace(new, old)
    assert back == text


def test_rename_keeps_gender_and_avoids_names_already_in_the_text():
    for seed in range(20):
        twin = entity_rename("Lucy has 3 pens and gives one to Adam. How many pens does she have?", seed)
        pools = name_table()["pool"]
        assert twin.changes["names"]["Lucy"] in pools["female"]
        assert twin.changes["names"]["Adam"] in pools["male"]


def test_no_names_or_ambiguous_words_give_no_rename():
    assert entity_rename(NO_NAMES, 1) is None
    # "Mark" at a sentence start is a verb, not a person; calendar words are never names
    assert person_names("Mark the points on a line. On Monday in May, how many points are there?") == {}
    assert person_names("Will has 3 hats. How many hats does Will have?") == {"Will": "male"}


def test_reorder_keeps_the_question_last_and_only_permutes_setup():
    for seed in range(10):
        twin = sentence_reorder(LUCY, seed)
        assert twin.text.endswith("How many stickers does Lucy have now?")
        assert sorted(segment(twin.text).sentences) == sorted(segment(LUCY).sentences)
        assert twin.text != LUCY


def test_reorder_never_moves_a_back_reference_before_its_antecedent():
    text = "Ken has 4 dogs. Sue has 2 cats. He walks his dogs twice a day. How many walks does Ken make in a week?"
    deps = back_references(segment(text).setup)
    assert deps[2] == {0}  # "He" points back to the nearest earlier sentence naming a man
    for seed in range(30):
        twin = sentence_reorder(text, seed)
        if twin is not None:
            assert twin.text.index("Ken has") < twin.text.index("He walks")
    # an event is a barrier: "Lucy gives" may not move before the states it changes
    for seed in range(10):
        t = sentence_reorder(LUCY, seed).text
        assert t.index("Lucy gives") > max(t.index("Lucy has three"), t.index("Adam has 14"))


def test_with_two_people_a_pronoun_sentence_stays_next_to_its_antecedent():
    text = (
        "Sally has 9 sweets. She keeps them in a jar. Her sister Rita has 4 sweets. "
        "(Rita is older.) How many sweets do the sisters have?"
    )
    deps = back_references(segment(text).setup)
    assert deps[1] == {0} and deps[2] == {0, 1} and 2 in deps[3]  # "Her sister Rita" is a barrier; "(" binds
    assert sentence_reorder(text, 0) is None


def test_reorder_does_not_apply_to_single_sentences_or_fixed_chains():
    assert sentence_reorder("How many legs do 3 spiders have?", 1) is None
    assert sentence_reorder("Ann has 3 pens. Then she buys 2 more. How many pens does she have?", 1) is None


def test_question_not_at_the_end_stays_with_its_tail():
    text = "How much money does Leo have left if he started with $85? He spent $23 on a jacket."
    seg = segment(text)
    assert seg.query == 0 and seg.setup == ()
    assert sentence_reorder(text, 0) is None
    twin = irrelevant_context(text, 1, DONORS, 5)
    assert twin.text.endswith(text) and "?" not in twin.text[: -len(text)]


def test_irrelevant_context_inserts_before_the_question_without_question_marks():
    base = "Tom has 3 apples. He buys 4 more. How many apples does Tom have?"
    for seed in range(15):
        twin = irrelevant_context(base, 3, DONORS, seed, exclude="d2")
        assert twin.injection_size == 3 and len(twin.changes["inserted"]) == 3
        assert "d2" not in twin.changes["donors"]
        assert all("?" not in s for s in twin.changes["inserted"])
        head, _, _ = base.rpartition("How many")
        assert twin.text == head + " ".join(twin.changes["inserted"]) + " How many apples does Tom have?"
    # donors cannot supply 9 sentences without a question
    assert irrelevant_context(base, 9, DONORS, 1) is None
    with pytest.raises(ValueError):
        irrelevant_context(base, 0, DONORS, 1)


def test_identity_is_the_base_text():
    twin = identity(MARCUS)
    assert twin.text == MARCUS and twin.operator == "identity" and twin.injection_size == 0 and twin.changes == {}


def test_reorder_keeps_referents_next_to_what_refers_to_them():
    # "that amount" and a bare "3 were orange" keep the sentence before them as their neighbour
    text = (
        "Antoine's recipe calls for 2 pounds of onions. He likes to double that amount. "
        "The onions are on sale for $2.00 a pound. What is the cost?"
    )
    fish = (
        "Bob had 7 fish in his pond. 3 were orange, and 4 were white. A pump costs $5. How many white fish are there?"
    )
    for seed in range(20):
        for t, pair in ((text, ("2 pounds of onions. He likes")), (fish, "pond. 3 were orange")):
            twin = sentence_reorder(t, seed)
            assert twin is None or pair in twin.text
    # a query pointing at the last event ("after that") pins the last setup sentence
    pinned = "Ann has 3 pens. Ben has 2 cups. How many pens does Ann have after that?"
    assert back_references(segment(pinned).setup, query=segment(pinned).sentences[-1])[1] == {0}
    assert back_references(segment(pinned).setup)[1] == set()
    # sentences placed in time keep their order; "the first" / "3 were" lean on what came before
    deps = back_references(["On Friday, the neighbours placed 18 flamingos.", "One weekend, they played a prank."])
    assert deps[1] == {0}


def test_reorder_of_a_one_person_text_introduces_the_person_by_name():
    text = "James keeps 3 dogs at home. He swims 2 miles a week. How many miles does he swim in 4 weeks?"
    twin = sentence_reorder(text, 0)
    assert twin.text == ("James swims 2 miles a week. He keeps 3 dogs at home. How many miles does he swim in 4 weeks?")
    assert twin.changes["named"] == ["James"]
    # "each sprint" leans on "3 sprints": no reorder at all
    assert (
        sentence_reorder(
            "James decides to run 3 sprints 3 times a week. He runs 60 meters each sprint. "
            "How many meters does he run a week?",
            0,
        )
        is None
    )
    assert sole_person("Ann has 3 pens. Bob has 2. How many pens does she have?") is None


def test_rename_leaves_place_names_and_keeps_pronouns_consistent():
    assert person_names("Tom drove from San Diego to Lake Tahoe. How far did he go?") == {"Tom": "male"}
    # an imperative opener is no first half of a two-word name (issue 31: "Suppose Karen")
    assert person_names("Suppose Karen has 3 pens. Let Omar have 2. How many?") == {"Karen": "female", "Omar": "male"}
    text = "Jordan has 3 pens. She buys 2 more. How many pens does she have?"
    for seed in range(10):
        new = entity_rename(text, seed).changes["names"]["Jordan"]
        assert new in name_table()["pool"]["female"]
    # a listed gender is kept even when the pronouns belong to someone the lists miss ("his sister Angela")
    twin = entity_rename("Brett is 14. In four years his sister Angela will be three times as old as he is.", 1)
    assert twin.changes["names"]["Angela"] in name_table()["pool"]["female"]


def test_distractor_donors_lend_only_setup_sentences():
    assert donor_run(["Ravi has 5 pens.", "He buys 2 more pens.", "What does he do?"]) == (
        "Ravi has 5 pens.",
        "He buys 2 more pens.",
    )
    assert donor_run(["He has 5 pens.", "Ravi has 3."]) == ()  # a run may not open by referring back
    assert not setup_sentence("Simplify $\\frac{6}{8}$.", True)
    assert not setup_sentence("In the diagram, $AB = 4$.", True)
    assert setup_sentence("A van carries 8 crates.")


def test_rename_leaves_title_compounds_and_holidays_alone():
    # "Mr. Potato Head" is a toy: a title + capitalised word before another capitalised word is no surname
    text = "Tom got a Mr. Potato Head for his birthday. Note that Mr. Potato Head can be bald. How many does Tom have?"
    assert person_names(text) == {"Tom": "male"}
    for seed in range(5):
        twin = entity_rename(text, seed)
        assert twin.text.count("Mr. Potato Head") == 2 and set(twin.changes["names"]) == {"Tom"}
    # a full name after a title is left whole; a plain title + surname is still renamed
    assert person_names("Dr. Hugo Grumpus has 3 cats. How many cats does Dr. Hugo Grumpus have?") == {}
    assert person_names("Mr. Smith has 3 pens. How many pens does Mr. Smith have?") == {"Smith": "surname"}
    assert "Mr. Smith" not in entity_rename("Mr. Smith has 3 pens. How many pens does Mr. Smith have?", 0).text
    # saints, places and holidays named after a person
    assert person_names("On St. Patrick's Day, Ann buys 3 roses.") == {"Ann": "female"}
    assert person_names("Ann flew to St. Paul last week.") == {"Ann": "female"}
    assert person_names("On Valentine's Day, Ann buys 3 roses.") == {"Ann": "female"}


def test_person_nouns_of_the_capture_guard():
    from glass_inspect.corpus.operators import mentions_gender, person_noun, person_nouns_in

    # listed roles, agent nouns (-er, -or, -ist, -ian, -eer, -man) and their plurals denote persons
    for word in ("juggler", "blacksmith", "jugglers", "hairstylist", "magician", "auctioneer", "salesmen", "ladies"):
        assert person_noun(word), word
    for word in ("firefighters", "children", "people", "toddler", "grader", "counselor", "trumpeters", "aunt"):
        assert person_noun(word), word
    # things, function words and comparatives do not
    for word in ("number", "computer", "water", "paper", "numbers", "median", "radians", "other", "after"):
        assert not person_noun(word), word
    for word in ("older", "bigger", "easier", "heavier", "farther", "better", "list", "flavors", "the"):
        assert not person_noun(word), word
    assert person_nouns_in("A box is 3 inches longer than a tin.") == []
    assert person_nouns_in("A juggler can juggle 16 balls.") == ["juggler"]
    # the audit's misses (gsm-1165, gsm-128): a person noun before a bare "he" is refused
    assert mentions_gender("A juggler can juggle 16 balls.", {"male"})
    assert mentions_gender("A blacksmith makes 12 horseshoes a day.", {"male"})
    assert not mentions_gender("A van carries 8 crates of water.", {"male"})
    assert not mentions_gender("A juggler can juggle 16 balls.", set())


def test_open_money_queries_refuse_money_distractors():
    from glass_inspect.corpus.operators import mentions_money, open_money_query

    # gsm-776: the query names nothing of the setup and asks what to pay
    laptop = "The price of a laptop is $1000. If you get a 20% discount, how much do you have to pay?"
    assert open_money_query(laptop)
    assert open_money_query("Carmen has $100 and Daisy has $50 more. How much do all three girls have combined?")
    # a query naming something of its setup, a question without money, a text with no setup: not open
    assert not open_money_query("Ann buys 3 pens at $2 each. How much did Ann spend?")
    assert not open_money_query("A laptop costs $1000. How much does the laptop cost after a 20% discount?")
    assert not open_money_query("A tank holds 30 fish. How many are left after 4 die?")
    assert not open_money_query("How much do you pay for 3 pens at $2 each?")
    assert open_money_query("A toy costs 5 dollars. If you buy $3$ of them, how much do you pay?", tex=True)
    assert mentions_money("A shirt costs 20 dollars.") and mentions_money("Ravi pays $5 for a kite.")
    assert mentions_money("The shop sells 40 hats a day.")
    assert not mentions_money("A van carries 8 crates.")


def test_an_escaped_dollar_neither_opens_nor_closes_a_maths_span():
    # "$\$5$" is one maths span holding a currency sign; a bare "\$5" in the prose is no span at all
    text = r"A toy costs $\$5$. If you buy $3$ of them, how much do you pay?"
    assert segment(text, True).sentences == (r"A toy costs $\$5$.", "If you buy $3$ of them, how much do you pay?")
    assert outside_maths(text, True) == "A toy costs      . If you buy     of them, how much do you pay?"
    prose = r"A pen costs \$5 each. Ann has $x$ pens. What is $x$?"
    assert segment(prose, True).sentences == (r"A pen costs \$5 each.", "Ann has $x$ pens.", "What is $x$?")
    assert maths_letters(prose) == {"x"}


def test_a_name_the_answer_holds_is_not_renamed():
    # MATH "Who wins?" problems have a name for gold: renaming it would change the answer
    text = "Alice, Devon and Omar each round 12345.6789. Who gets the largest number? Devon rounds to the nearest ten."
    for seed in range(10):
        twin = entity_rename(text, seed, answer="devon")
        assert "Devon" not in twin.changes["names"] and "Devon" in twin.text
        assert set(twin.changes["names"]) == {"Alice", "Omar"}
    assert entity_rename("Devon has 3 pens. Who has 3 pens?", 0, answer="Devon") is None


def test_what_the_final_math_distractor_audit_found_is_refused():
    # an instruction right before the query belongs to the task: no distractor between "Add ..." and "Express ..."
    task = "Add 313.9 to 12.6. Express the result as a decimal."
    assert segment(task, True).query == 0
    twin = irrelevant_context(task, 1, [("d", ("A pen costs 3 dollars.",))], 0, tex=True)
    assert twin.text == "A pen costs 3 dollars. " + task
    # never between a lead-in and the list it introduces
    listed = "Ann writes a list of 5 numbers:\n$1, 2, 3, 4, 5$. How many are odd?"
    twin = irrelevant_context(listed, 1, [("d", ("A pen costs 3 dollars.",))], 0, tex=True)
    assert "numbers:\n$1, 2" in twin.text
    # a condition with no main clause, a shaded figure: not setup
    assert not setup_sentence("If you have an empty basin that can hold 260 gallons of water.")
    assert not setup_sentence("A paper cone has radius 4 inches (shaded).")
    assert setup_sentence("A basin holds 260 gallons of water.")


def test_distractors_never_stand_between_a_reference_and_its_referent():

    donors = [("d", ("A bus holds 80 people.",))]
    # "How much does it cost to fill?" leans on "It cost ...", which leans on the pool: the distractor opens it
    pool = "John fills a 6 foot by 4 foot pool. It costs $.1 per cubic foot to fill. How much does it cost to fill?"
    assert insertion_point(pool) == 0
    assert irrelevant_context(pool, 1, donors, 0).text == "A bus holds 80 people. " + pool
    # "At this rate" leans on the sentence before it; a question that leans on nothing keeps its place
    rate = "A crocodile is 10 inches long. It grows 2 inches a year. At this rate, how long will it be in 8 years?"
    assert insertion_point(rate) == 0
    plain = "Ann has 3 pens. Bob has 4 cups. How many pens does Ann have?"
    assert insertion_point(plain) == 2
    # a bare "he" after the insertion point makes every person-like sentence a capture risk ("A park warden")
    from glass_inspect.corpus.operators import capture_risk, mentions_gender

    text = "John drives 30 miles a day. If he spends 50 dollars on gas, how much is a mile?"
    assert capture_risk(text) == {"male"}
    assert mentions_gender("A park warden has issued 24 citations.", {"male"})


def test_what_the_third_math_distractor_audit_found_is_refused():

    # a display environment is one maths span: no sentence boundary (and no insertion) inside it
    aligned = "Let $a$ and $b$ be roots. Then \\begin{align*} x &= 1. \\\\ Y &= 2. \\end{align*} Find $a+b$."
    assert segment(aligned, True).sentences == (
        "Let $a$ and $b$ be roots.",
        aligned[len("Let $a$ and $b$ be roots. ") :],
    )
    # a list label is not a sentence of its own
    listed = "Which statements hold? 15. $x < 1$. 16. $x^3 < x < x^2$."
    assert "16. $x^3 < x < x^2$." in segment(listed, True).sentences[-1]
    statements = "Consider these statements:\n\n1. $x < x^2$\n16. $x^3 < x$\n\nEnter the sum of the true labels."
    assert all(not s.rstrip().endswith(("1.", "16.")) for s in segment(statements, True).sentences)
    # a question about "the numbers" the setup just gave keeps that sentence as its neighbour
    text = "The sum of two numbers is 22. Their difference is 4. What is the greater number?"
    assert insertion_point(text, True) == 0
    assert insertion_point("Two numbers add to 22. What is the greater number?", True) == 0
    assert insertion_point("Ann has 22 pens. Bob has 3 cups. What is the number of pens Ann has?") == 2


def test_distractors_never_follow_the_question_or_split_quotes_lists_and_back_references():

    # the question is a clause inside the first sentence (its period is maths): nothing after it
    note = "In triangle $PQR,$ $p = 2$ and $q = 3.$  Find $\\angle P,$ in degrees.\n\nNote: $p$ is opposite $P$."
    assert insertion_point(note, True) == 0
    assert insertion_point("Let $x = 2$. If $y = x + 1$, compute $y$. Note: $y$ is real.", True) == 1
    # an instruction about the answer's form belongs to the question before it (issue 31: math-564)
    assert insertion_point("Let $x > 1$. If $x^2 = 4$, solve for $x$. Express your answer as a fraction.", True) == 1
    assert insertion_point("There are primes $p$ with no solution. Determine the sum of all such $p$.", True) == 0
    assert insertion_point("Two sides are 18 and 29. If the third side is an integer, what is its range?", True) == 0
    # inside quoted speech: out of the quote
    speech = 'Ann says, "I have 3 pens. Here is one more." Bob says, "Then how many are left?"'
    assert insertion_point(speech) == 0
    # between numbered items, and between a lead-in and its items
    items = "Answer the following questions.\n\n1. Is $2 > 1$?\n\n2. Is $3 > 4$?"
    assert insertion_point(items, True) == 0
    # the question leans on the sentence before ("them"), which opens on a back reference: moved up past both
    for tail in (
        "The rest are blue.",
        "Then Ann buys 2 more.",
        "A third says 25.",
        "One of the boxes is empty.",
        "3 of the boxes are red.",
        "We keep 4 of them.",
        "Ben buys the same number.",
        "Ben sells the resulting stack.",
        "Another says 20 more than the first one.",
    ):
        assert insertion_point(f"Ann has 12 boxes. {tail} How many of them are green?") == 0, tail
    # a sentence leaning on nothing stops the move (the guard is not always on)
    assert insertion_point("Ann has 12 boxes. Ben has 4 cups. How many of them are green?") == 1


def test_math_letters_in_donor_prose_collide_with_the_target():
    from glass_inspect.corpus.audit import DROP_VARIABLE, structural_audit
    from glass_inspect.corpus.operators import prose_letters

    assert prose_letters("Team A beat teams B and C. A pen costs 2 dollars. I have 3. It's Bob's.", True) == {
        "A",
        "B",
        "C",
    }
    assert prose_letters("A is 60 degrees.", True) == {"A"}
    triangle = "In triangle $ABC$, $AB = 3$ and $BC = 4$. Find $\\angle A$."
    assert DROP_VARIABLE in structural_audit(triangle, ["A is 60 degrees and B is 2 more."], "30", tex=True).drops
    assert DROP_VARIABLE in structural_audit(triangle, ["Team C won 4 games."], "30", tex=True).drops
    assert DROP_VARIABLE not in structural_audit(triangle, ["A pen costs 4 dollars."], "30", tex=True).drops


def test_the_census_lexicon_names_people_the_lists_miss():
    # issue 31: ordinary first names that names.json lacks, each with the lexicon's gender
    assert person_names("Travis has 8 apps. Maggie deletes 2 of them.") == {"Travis": "male", "Maggie": "female"}
    three = person_names("Celine and Jillian share 9 plums. Mariah brings 4 more. How many plums are there?")
    assert three == {"Celine": "female", "Jillian": "female", "Mariah": "female"}
    assert census_first_names()["Colby"] == "unisex"  # 90 % of its bearers are men: below the 95 % bar
    for seed in range(5):  # one person with a unisex name: the pronouns choose the pool
        twin = entity_rename("Colby runs 3 laps a day. How far does he run in a week?", seed)
        assert twin.changes["names"]["Colby"] in name_table()["pool"]["male"] and "Colby" not in twin.text


def test_lexicon_names_that_are_words_places_titles_or_parts_are_left_alone():
    assert person_names("Walter and Holly bake 6 pies. King Arthur eats 2.") == {"Walter": "male"}
    assert person_names("Nora drove to Dallas in 3 hours. Then she flew to India.") == {"Nora": "female"}
    assert person_names("Dallas has 3 pens and Nora gives Dallas 2 more.") == {"Dallas": "unisex", "Nora": "female"}
    assert person_names("Colby buys 2 pounds of colby cheese. How much does it cost?") == {}
    assert person_names("The price of a gold Jewell is $40. What do 3 cost?") == {}
    assert person_names("Miss Travis teaches 20 kids. How many does she teach?") == {"Travis": "surname"}
    assert person_names("Sally, Wei-Hwa and D'Angelo share 12 figs.") == {"Sally": "female"}
    assert lexicon_name_here("Travis has 5 pens.", "Travis") and not ordinary_word("Travis")
    assert ordinary_word("Penny") and ordinary_word("rose")  # rose -> rise: inflections count


def test_a_lexicon_name_the_pronouns_contradict_keeps_its_name():
    # Marin is mostly a woman's name; here "his" can only be Marin's, so Marin's pool is unknown
    twin = entity_rename("Marin and his neighbor Nancy each eat 4 apples a day. How many do they eat?", 2)
    assert set(twin.changes["names"]) == {"Nancy"} and twin.text.startswith("Marin and his neighbor ")
    assert entity_rename("Maggie asked the baker. He sold 3 buns. How many buns are left?", 0) is None
    # pronouns that agree with the lexicon's gender: renamed as before
    assert entity_rename("Maggie bakes 4 pies. She sells 3. How many pies are left?", 0) is not None


def test_insertions_never_split_a_purpose_clause_a_numbered_ordinal_or_a_bare_count_question():
    # what the seed-33 audit found (issue 31): each leaning sentence keeps the one before it
    floods = "Floods left many families without food. To help, Mamou gives out 1,360 meals. How many are left?"
    assert insertion_point(floods) == 0  # not before "To help", nor before the bare count question
    cheer = "9 out of 10 cheerleaders are 64 inches tall. The 10th cheerleader is 60 inches tall. How tall are they?"
    assert insertion_point(cheer) == 0
    shells = "Jim found 27 shells. Carlos found 22. They shared them equally. How many did each person get?"
    assert insertion_point(shells) == 1  # the question, "They" and the ellipsis "found 22" each lean back
    assert insertion_point("Tom has 4 pens. Ann has 3 pens. How many pens does Ann have?") == 2  # a noun: free
