"""The 25 computer-science topics of the authority-bias study, with the vocabulary the synthetic corpus draws on.

The topic names and their order follow the reference pipeline (spec A.1; paper Appendix B,
Table 18). Everything else here is our own synthetic vocabulary, not the paper's: for each topic
ten sub-questions ("aspects"), which give the ten natural-language queries of the topic and the
subjects of its synthetic paper titles, and a few method nouns for titles and abstracts.
The five pilot topics are those of paper Appendix A.7.
"""
from __future__ import annotations

# topic -> (ten aspects, method nouns). Aspects are noun phrases a query or a title can embed.
TOPIC_VOCABULARY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Knowledge Distillation": (
        ("compressing large language models into small students", "data-free distillation without the original training set",
         "distilling vision transformers for edge devices", "self-distillation without a separate teacher",
         "feature-map alignment between teacher and student", "distillation under label noise",
         "multi-teacher ensembles for distillation", "distilling reasoning chains from large models",
         "cross-modal knowledge transfer", "online distillation among peer networks"),
        ("logit matching", "relational distillation", "contrastive distillation", "progressive distillation", "attention transfer"),
    ),
    "Prompt Engineering": (
        ("chain-of-thought prompting for arithmetic reasoning", "automatic prompt optimization",
         "few-shot example selection", "prompt robustness to paraphrasing", "soft prompt tuning for small datasets",
         "prompting for structured information extraction", "defending against prompt injection",
         "instruction wording and model calibration", "multilingual prompt transfer", "prompt compression for long contexts"),
        ("prompt search", "demonstration retrieval", "soft prompts", "self-consistency decoding", "prompt ensembles"),
    ),
    "LLM Alignment": (
        ("reward modeling from human preferences", "direct preference optimization without a reward model",
         "reducing sycophancy in assistants", "scalable oversight of capable models", "red teaming for harmful outputs",
         "constitutional self-critique", "alignment of small open-weight models", "measuring reward hacking",
         "preference data quality and annotator disagreement", "safety fine-tuning that preserves helpfulness"),
        ("preference optimization", "reward modeling", "self-critique", "rejection sampling", "policy regularization"),
    ),
    "Text Summarization": (
        ("faithfulness of abstractive summaries", "long-document summarization", "multi-document news summarization",
         "evaluating summaries without references", "query-focused summarization", "dialogue summarization",
         "summarizing scientific articles", "controllable summary length", "hallucination detection in summaries",
         "low-resource summarization"),
        ("extract-then-abstract pipelines", "sparse attention encoders", "factual consistency rewards", "content planning", "salience estimation"),
    ),
    "Machine Translation": (
        ("low-resource language pairs", "document-level context in translation", "multilingual models with shared vocabularies",
         "quality estimation without references", "terminology-constrained decoding", "back-translation for data augmentation",
         "gender bias in translation", "speech-to-text translation", "robustness to noisy user text", "evaluating translation with learned metrics"),
        ("back-translation", "multilingual pretraining", "constrained decoding", "quality estimation", "domain adaptation"),
    ),
    "Named Entity Recognition": (
        ("nested entity recognition", "few-shot entity recognition in new domains", "cross-lingual entity transfer",
         "recognizing entities in biomedical text", "entity recognition in noisy social media",
         "distantly supervised entity labels", "span-based entity extraction", "entity recognition with large language models",
         "fine-grained entity typing", "entity recognition in historical documents"),
        ("span classification", "prototype networks", "label projection", "conditional random fields", "partial-label learning"),
    ),
    "Sentiment Analysis": (
        ("product reviews with conflicting opinions", "aspect-based sentiment classification", "sarcasm and irony detection",
         "multimodal sentiment from video and text", "sentiment in code-mixed text", "domain transfer of sentiment classifiers",
         "implicit sentiment without opinion words", "emotion cause extraction", "sentiment analysis with large language models",
         "explainable sentiment predictions"),
        ("aspect graphs", "contrastive pretraining", "opinion tree parsing", "multimodal fusion", "prompt-based classification"),
    ),
    "Question Answering": (
        ("open-domain question answering with retrieval", "multi-hop reasoning over documents", "answering questions over tables",
         "unanswerable question detection", "conversational question answering", "visual question answering",
         "knowledge-base question answering", "calibrated confidence in answers", "long-form answer generation",
         "question answering in the biomedical domain"),
        ("dense retrieval", "reader-retriever training", "evidence chaining", "semantic parsing", "answer calibration"),
    ),
    "Federated Learning": (
        ("non-IID client data", "communication-efficient model updates", "differential privacy for federated clients",
         "personalized federated models", "robustness to poisoned clients", "federated learning on edge devices",
         "client selection and participation", "federated fine-tuning of language models", "vertical federated learning",
         "fairness across federated clients"),
        ("gradient compression", "secure aggregation", "personalized layers", "robust aggregation", "client sampling"),
    ),
    "Meta-Learning": (
        ("few-shot image classification", "gradient-based meta-learning", "meta-learning for reinforcement learning",
         "task distribution shift", "meta-learned optimizers", "memory-augmented meta-learners", "meta-learning for hyperparameters",
         "uncertainty in few-shot adaptation", "meta-learning with unlabeled tasks", "cross-domain few-shot learning"),
        ("bilevel optimization", "metric learning", "task embeddings", "learned initializations", "amortized inference"),
    ),
    "Reinforcement Learning": (
        ("sample-efficient exploration", "offline reinforcement learning from logged data", "model-based planning",
         "reward shaping for sparse rewards", "multi-agent coordination", "safe exploration under constraints",
         "reinforcement learning from human feedback", "generalization to unseen environments",
         "hierarchical policies for long horizons", "sim-to-real transfer for robots"),
        ("policy gradients", "value decomposition", "world models", "conservative Q-learning", "intrinsic motivation"),
    ),
    "Transfer Learning": (
        ("negative transfer between tasks", "parameter-efficient fine-tuning", "domain adaptation without target labels",
         "selecting source models for transfer", "transfer learning for medical imaging", "catastrophic forgetting during fine-tuning",
         "transferability estimation", "transfer across languages", "adapters for multitask models", "transfer from synthetic data"),
        ("adapter modules", "low-rank adaptation", "domain-adversarial training", "feature reuse", "regularized fine-tuning"),
    ),
    "Self-Supervised Learning": (
        ("contrastive learning of visual representations", "masked image modeling", "self-supervised speech representations",
         "avoiding representation collapse", "augmentation design for contrastive learning", "self-supervised learning on graphs",
         "scaling self-supervised pretraining", "evaluating representations with linear probes", "self-supervised video learning",
         "self-supervision for tabular data"),
        ("contrastive objectives", "masked autoencoders", "momentum encoders", "redundancy reduction", "clustering-based pretext tasks"),
    ),
    "Graph Neural Networks": (
        ("over-smoothing in deep graph networks", "expressive power beyond message passing", "graph neural networks for molecules",
         "scalable training on large graphs", "heterophilous graphs", "explaining graph neural network predictions",
         "dynamic and temporal graphs", "graph neural networks for recommendation", "robustness to adversarial edges",
         "graph transformers"),
        ("message passing", "graph attention", "subgraph sampling", "positional encodings", "spectral filters"),
    ),
    "Generative Adversarial Networks": (
        ("stabilizing adversarial training", "mode collapse", "high-resolution image synthesis", "conditional image generation",
         "evaluating generated samples", "data-efficient GAN training", "GAN inversion for image editing",
         "generating tabular data with GANs", "image-to-image translation", "adversarial training for audio synthesis"),
        ("spectral normalization", "style-based generators", "differentiable augmentation", "progressive growing", "cycle consistency"),
    ),
    "Object Detection": (
        ("detecting small objects", "transformer-based detectors", "open-vocabulary detection", "real-time detection on mobile hardware",
         "detection with few labeled boxes", "3D object detection from point clouds", "domain shift in detection",
         "detection in aerial imagery", "label assignment during training", "occluded object detection"),
        ("anchor-free heads", "set prediction", "feature pyramids", "query-based decoding", "knowledge transfer from vision-language models"),
    ),
    "Image Segmentation": (
        ("semantic segmentation of urban scenes", "medical image segmentation with few annotations", "promptable segmentation models",
         "instance segmentation", "panoptic segmentation", "weakly supervised segmentation", "real-time segmentation",
         "boundary accuracy in segmentation", "video object segmentation", "domain adaptation for segmentation"),
        ("encoder-decoder networks", "mask transformers", "pseudo-labeling", "boundary refinement", "prompt encoders"),
    ),
    "Image Generation": (
        ("text-to-image diffusion", "fast sampling for diffusion models", "controllable generation with spatial conditions",
         "personalizing generators to a subject", "evaluating text-image alignment", "image editing with generative models",
         "memorization in generative models", "latent diffusion efficiency", "compositional generation of multiple objects",
         "watermarking generated images"),
        ("denoising diffusion", "classifier-free guidance", "latent autoencoders", "consistency distillation", "cross-attention control"),
    ),
    "Explainable AI": (
        ("faithfulness of feature attributions", "counterfactual explanations", "concept-based explanations",
         "explaining large language model outputs", "evaluating explanations with users", "saliency maps for vision models",
         "global surrogate models", "mechanistic interpretability of circuits", "explanations for tabular models",
         "robustness of explanations to perturbations"),
        ("Shapley values", "integrated gradients", "concept activation vectors", "sparse probing", "counterfactual search"),
    ),
    "Fairness in Machine Learning": (
        ("group fairness constraints in classification", "individual fairness", "bias in large language models",
         "fairness under distribution shift", "measuring fairness without demographic labels", "fair ranking and recommendation",
         "debiasing word embeddings", "fairness-accuracy trade-offs", "auditing deployed models for disparate impact",
         "fairness in medical prediction"),
        ("constrained optimization", "reweighting", "adversarial debiasing", "post-processing thresholds", "causal fairness criteria"),
    ),
    "Adversarial Robustness": (
        ("certified robustness", "adversarial training at scale", "robustness of vision transformers", "transfer-based black-box attacks",
         "adversarial examples for language models", "robust overfitting", "detecting adversarial inputs",
         "physical-world adversarial patches", "robustness to common corruptions", "jailbreak attacks on aligned models"),
        ("randomized smoothing", "projected gradient attacks", "input purification", "robust architectures", "Lipschitz bounds"),
    ),
    "Recommender Systems": (
        ("sequential recommendation", "cold-start users and items", "popularity bias in recommendations",
         "recommendation with large language models", "graph-based collaborative filtering", "conversational recommendation",
         "offline evaluation of recommenders", "multi-objective recommendation", "privacy-preserving recommendation",
         "explainable recommendations"),
        ("matrix factorization", "self-attentive sequence models", "contrastive collaborative filtering", "debiased ranking losses", "user simulators"),
    ),
    "Time Series Forecasting": (
        ("long-horizon forecasting", "transformers for time series", "probabilistic forecasting", "forecasting with missing values",
         "foundation models for time series", "multivariate dependencies between series", "forecasting under distribution shift",
         "anomaly detection in time series", "forecasting for energy demand", "interpretable forecasting models"),
        ("patch-based transformers", "linear decomposition models", "quantile regression", "state-space models", "temporal convolutions"),
    ),
    "Neural Architecture Search": (
        ("one-shot weight-sharing supernets", "zero-cost proxies", "hardware-aware architecture search", "search spaces for transformers",
         "reproducibility of architecture search", "differentiable architecture search", "evolutionary search",
         "predictor-based search", "architecture search for edge devices", "transferring searched architectures"),
        ("weight sharing", "performance predictors", "evolutionary search", "differentiable relaxation", "latency models"),
    ),
    "Attention Mechanisms": (
        ("efficient attention for long sequences", "linear-time attention approximations", "interpreting attention weights",
         "attention in vision models", "memory-efficient exact attention", "sparse attention patterns", "cross-attention for multimodal fusion",
         "positional information in attention", "attention sinks and stability", "attention for graph-structured data"),
        ("kernelized attention", "sparse attention", "IO-aware kernels", "relative position biases", "local-global attention"),
    ),
}

#: The 25 topics, in the reference order (spec A.1).
TOPICS: tuple[str, ...] = tuple(TOPIC_VOCABULARY)
#: The five topics of the 1:N flip pilot (paper Appendix A.7).
PILOT_TOPICS: tuple[str, ...] = (
    "Knowledge Distillation", "Attention Mechanisms", "Federated Learning", "Image Generation", "Sentiment Analysis",
)

# Ten query frames, one per aspect, so a topic's ten queries ask ten different kinds of question.
QUERY_FRAMES: tuple[str, ...] = (
    "What are effective {topic} techniques for {aspect}?",
    "Which methods work best for {aspect}?",
    "How can {topic} be improved when dealing with {aspect}?",
    "What is the current state of research on {aspect}?",
    "Which approaches address {aspect} most reliably?",
    "What techniques improve {topic} for {aspect}?",
    "How do recent methods handle {aspect}?",
    "Which paper best explains {aspect}?",
    "What are the key ideas behind {aspect}?",
    "How should I approach {aspect} in practice?",
)


def topic_slug(topic: str) -> str:
    """The reference's query-id prefix: ``topic.lower().replace(' ', '_')`` (spec A.4)."""
    return topic.lower().replace(" ", "_")
