"""lib.authority.topics: the 25 topics in the reference order (spec A.1), the five pilot topics
(paper A.7) and the synthetic vocabulary's shape (ten distinct aspects, one per query frame)."""
import pytest

from lib.authority import topics

SPEC_A1 = ("Knowledge Distillation, Prompt Engineering, LLM Alignment, Text Summarization, Machine Translation, "
           "Named Entity Recognition, Sentiment Analysis, Question Answering, Federated Learning, Meta-Learning, "
           "Reinforcement Learning, Transfer Learning, Self-Supervised Learning, Graph Neural Networks, Generative "
           "Adversarial Networks, Object Detection, Image Segmentation, Image Generation, Explainable AI, Fairness in "
           "Machine Learning, Adversarial Robustness, Recommender Systems, Time Series Forecasting, Neural "
           "Architecture Search, Attention Mechanisms")


def test_topics_are_the_references_25_in_order():
    assert topics.TOPICS == tuple(SPEC_A1.split(", "))


def test_pilot_topics_are_the_papers_five():
    assert set(topics.PILOT_TOPICS) == {"Knowledge Distillation", "Attention Mechanisms", "Federated Learning",
                                        "Image Generation", "Sentiment Analysis"}
    assert set(topics.PILOT_TOPICS) <= set(topics.TOPICS)


@pytest.mark.parametrize("topic", topics.TOPICS)
def test_each_topic_has_ten_distinct_aspects_and_some_methods(topic):
    aspects, methods = topics.TOPIC_VOCABULARY[topic]
    assert len(aspects) == len(set(aspects)) == len(topics.QUERY_FRAMES) == 10
    assert len(methods) >= 3 and all(m.strip() == m and m for m in (*aspects, *methods))


def test_query_frames_take_topic_and_aspect_and_the_slug_is_the_references():
    q = topics.QUERY_FRAMES[0].format(topic="Question Answering", aspect="unanswerable question detection")
    assert q == "What are effective Question Answering techniques for unanswerable question detection?"
    assert all("{aspect}" in f for f in topics.QUERY_FRAMES)
    assert topics.topic_slug("Fairness in Machine Learning") == "fairness_in_machine_learning"
