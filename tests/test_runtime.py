"""mx.runtime: MXNet's 32 feature names, answered from what reflib really uses on this machine."""

import importlib.util

import numpy as np
import pytest

import reflib as mx
from reflib.runtime import Feature, Features, feature_list


def test_the_features_are_mxnets_names_in_its_order_and_one_object():
    features = Features()
    assert Features() is features
    assert list(features)[:5] == ['CUDA', 'CUDNN', 'NCCL', 'CUDA_RTC', 'TENSORRT']
    assert len(features) == 32 and list(features)[-1] == 'TVM_OP'
    assert [f.name for f in feature_list()] == list(features)
    assert repr(Feature('X', True)) == '✔ X' and repr(Feature('Y', False)) == '✖ Y'
    assert str(features).startswith('[')


def test_is_enabled_ignores_case_and_names_unknown_features():
    features = Features()
    for name, feature in features.items():
        assert features.is_enabled(name.lower()) == feature.enabled
    with pytest.raises(RuntimeError, match="Feature 'NOPE' is unknown.*'CUDA'"):
        features.is_enabled('nope')


def test_each_answer_is_what_this_reflib_has():
    features = Features()
    has_gpu = importlib.util.find_spec('cupy') is not None and mx.num_gpus() > 0
    assert features.is_enabled('CUDA') == has_gpu
    assert features.is_enabled('DIST_KVSTORE') == (importlib.util.find_spec('mpi4py') is not None)
    blas = np.show_config(mode='dicts')['Build Dependencies']['blas']['name'].lower()
    assert features.is_enabled('BLAS_OPEN') == ('openblas' in blas)
    assert features.is_enabled('INT64_TENSOR_SIZE')
    # what reflib has none of
    for name in ('MKLDNN', 'OPENCV', 'TENSORRT', 'NCCL', 'TVM_OP', 'CAFFE'):
        assert not features.is_enabled(name)
