// Everything a plugin author includes.
#pragma once

#include "glimpse/dataset.hpp"
#include "glimpse/error.hpp"
#include "glimpse/instance.hpp"
#include "glimpse/interfaces.hpp"
#include "glimpse/params.hpp"
#include "glimpse/plugin.hpp"
#include "glimpse/prediction.hpp"
#include "glimpse/random.hpp"
