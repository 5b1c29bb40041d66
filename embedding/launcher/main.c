/* The superwall-bridge executable the packages ship: the command line lives in
 * libsuperwall_bridge.so (superwall_bridge_main), which the packages carry for in-process use
 * anyway, so the executable is this launcher and the bridge's code ships once. It finds the
 * library beside it or in ../lib (its rpath: $ORIGIN and $ORIGIN/../lib). */
#include "superwall_bridge.h"

int main(int argc, char **argv) {
    return superwall_bridge_main(argc, argv);
}
