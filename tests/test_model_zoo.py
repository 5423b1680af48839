"""gluon.model_zoo (reflib/gluon/model_zoo/) against MXNet 1.9.1 (golden/model_zoo.json, from
golden/gen_model_zoo.py): for ResNet v1/v2 (basic and bottleneck, thumbnail and ImageNet
stems), AlexNet, VGG-11 with BatchNorm, SqueezeNet 1.1, both MobileNets, DenseNet-121 and
Inception v3, on parameters set
from a seeded numpy RandomState -- the parameter names and shapes, the output imperative and
hybridized, and for some the output with BatchNorm on batch statistics and after an
export()/SymbolBlock.imports round trip with the keys of the exported file; and for every
get_model name a digest of the parameter names and shapes.  Then what needs no oracle:
get_model's errors, default prefixes, and pretrained weights read from disk only."""

import importlib
import json
import os
import re
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.gluon.model_zoo import model_store, vision
from reflib.gluon.utils import DownloadError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import model_zoo_cases as cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'model_zoo.json')) as _f:
    GOLDEN = json.load(_f)

ARRAY_KEYS = ('out', 'out_train', 'out_hybrid', 'out_imported')


@pytest.mark.parametrize('case', sorted(cases.NETWORKS))
def test_same_network_as_mxnet(case):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = json.loads(json.dumps(cases.network_case(mx, case)))
    want = GOLDEN[case]
    assert sorted(got) == sorted(want)
    assert got['params'] == want['params'], 'parameter names or shapes differ'
    assert got.get('export_keys') == want.get('export_keys')
    for key in ARRAY_KEYS:
        if key in want:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5,
                                       err_msg='%s: %s' % (case, key))


def test_every_model_has_mxnets_parameter_names_and_shapes():
    got = cases.cases_of(mx)['names']()
    assert sorted(got) == sorted(GOLDEN['names'])
    assert {name: got[name] for name in got if got[name] != GOLDEN['names'][name]} == {}


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.cases_of(mx))


def test_the_package_exports_what_its_modules_declare():
    # (by import_module: the package's attribute 'alexnet' is the function, as in MXNet)
    modules = [importlib.import_module('reflib.gluon.model_zoo.vision.' + name)
               for name in ['alexnet', 'densenet', 'inception', 'mobilenet', 'resnet', 'squeezenet', 'vgg']]
    assert sorted(vision.__all__) == sorted(sum((m.__all__ for m in modules), []) + ['get_model'])
    assert all(callable(getattr(vision, name)) for name in vision.__all__)
    assert mx.gluon.model_zoo.vision is vision


def test_get_model_takes_any_case_and_refuses_unknown_names_with_the_list():
    assert isinstance(vision.get_model('ResNet18_V1', classes=3), vision.ResNetV1)
    with pytest.raises(ValueError) as err:
        vision.get_model('resnet19_v1')
    for name in ['resnet19_v1', 'resnet18_v1', 'vgg16_bn']:
        assert name in str(err.value)
    assert isinstance(vision.get_model('DenseNet121', classes=3), vision.DenseNet)
    assert isinstance(vision.get_model('InceptionV3', classes=3), vision.Inception3)


def test_default_prefixes_are_mxnets():
    patterns = {'resnet18_v1': r'resnetv1\d+_', 'resnet50_v2': r'resnetv2\d+_', 'vgg11': r'vgg\d+_',
                'alexnet': r'alexnet\d+_', 'squeezenet1.0': r'squeezenet\d+_',
                'mobilenet0.5': r'mobilenet\d+_', 'mobilenetv2_0.5': r'mobilenetv2\d+_',
                'densenet169': r'densenet\d+_', 'inceptionv3': r'inception3\d+_'}
    for name, pattern in patterns.items():
        assert re.fullmatch(pattern, vision.get_model(name).prefix), name


def test_get_resnet_checks_its_arguments():
    with pytest.raises(AssertionError):
        vision.get_resnet(3, 18)
    with pytest.raises(AssertionError):
        vision.get_resnet(1, 20)


def test_pretrained_weights_missing_from_root_name_the_model_and_file(tmp_path):
    with pytest.raises(DownloadError) as err:
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))
    assert 'resnet18_v1' in str(err.value) and 'resnet18_v1-a0666292.params' in str(err.value)
    assert isinstance(err.value, OSError)
    assert os.listdir(str(tmp_path)) == []          # nothing written, nothing fetched
    with pytest.raises(DownloadError, match='mobilenetv2_0.5-aabd26cd.params'):
        vision.mobilenet_v2_0_5(pretrained=True, root=str(tmp_path))
    with pytest.raises(DownloadError, match='vgg11_bn-ee79a809.params'):
        vision.vgg11_bn(pretrained=True, root=str(tmp_path))
    with pytest.raises(DownloadError, match='densenet121-f27dbf2d.params'):
        vision.densenet121(pretrained=True, root=str(tmp_path))
    with pytest.raises(DownloadError, match='inceptionv3-ed47ec45.params'):
        vision.inception_v3(pretrained=True, root=str(tmp_path))
    with pytest.raises(ValueError, match='not available'):
        model_store.get_model_file('resnet19_v1', root=str(tmp_path))


def test_pretrained_weights_with_the_wrong_sha1_are_refused(tmp_path):
    (tmp_path / 'mobilenet0.25-9f83e440.params').write_bytes(b'not the published file')
    with pytest.raises(DownloadError, match='SHA-1'):
        vision.mobilenet0_25(pretrained=True, root=str(tmp_path))


def test_pretrained_weights_in_root_are_loaded(tmp_path, monkeypatch):
    source = vision.mobilenet0_25(classes=5)
    source.initialize()
    source(mx.nd.ones((1, 3, 32, 32)))
    source.save_parameters(str(tmp_path / 'mobilenet0.25-9f83e440.params'))
    # our file is not the published one, so only the SHA-1 check is told to accept it
    monkeypatch.setattr(model_store, 'check_sha1', lambda path, sha1: True)
    loaded = vision.get_model('mobilenet0.25', classes=5, pretrained=True, root=str(tmp_path))
    for (name, mine), theirs in zip(loaded.collect_params().items(), source.collect_params().values()):
        np.testing.assert_array_equal(mine.data().asnumpy(), theirs.data().asnumpy(), err_msg=name)
