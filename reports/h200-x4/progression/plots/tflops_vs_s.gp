# tflops_vs_s.gp: rendered by attnlab-report from the newest ok record of every phase and shape under ../records.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot tflops_vs_s.gp (reads tflops_vs_s.dat, writes tflops_vs_s.png)
set terminal pngcairo size 900,1660 enhanced font 'DejaVu Sans,10'
set output 'tflops_vs_s.png'
set multiplot layout 4,1 title "TFLOPS against S: newest ok record per phase and shape, headline regime at device time; bars: p10-p90\nfilled: busy time, hollow: span only; circle: the board and session of most figures, triangle: another board (§), square: another session on it (¶)" noenhanced font ',9'
set errorbars large
set logscale x 2
set xrange [320:18022.4]
set xtics ("512" 512, "1024" 1024, "2048" 2048, "4096" 4096, "8192" 8192) noenhanced
set xlabel 'sequence length S (B shrinks as S grows; shapes in the report''s table)' noenhanced
set ylabel 'TFLOPS'
unset key
set grid lc rgb '#dddddd'

unset label
set title 'D = 64, log axis: every phase'
set logscale y
set yrange [1:1000]
set label '3c' at 4423.68,89.0139687 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 4423.68,112.579202 left font ',8' tc rgb '#d62728' noenhanced
set label 'd2' at 8847.36,4.70936572 left font ',8' tc rgb '#17becf' noenhanced
set label 'd1' at 8847.36,5.956106 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd3' at 8847.36,13.4290531 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,16.9842116 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,21.4805498 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,27.1672321 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,51.9385573 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,93.4614228 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,136.103321 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'sdpa-flash' at 8847.36,248.969511 left font ',8' tc rgb '#c49c94' noenhanced
set label 'd4' at 8847.36,314.88079 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-cudnn' at 8847.36,398.241181 left font ',8' tc rgb '#ff9896' noenhanced
set label 'cudnn' at 8847.36,503.670096 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,637.009878 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 0 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 0 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 0 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 1 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 1 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 1 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 2 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 2 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 2 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 3 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 3 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 3 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 4 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 4 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 4 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 5 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 5 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 5 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 6 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 6 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 6 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 7 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 7 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 7 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 8 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 8 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 8 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 9 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 9 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 9 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 10 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 10 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 10 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 11 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 11 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 11 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 12 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 12 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 12 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#98df8a', \
     'tflops_vs_s.dat' index 13 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 13 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 13 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 14 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 14 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 14 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 15 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 15 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 15 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94'

unset label
set title 'D = 64, linear axis: near-equal figures apart'
unset logscale y
set yrange [0:643.931371]
set label '3c' at 4423.68,89.1684437 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 4423.68,111.06211 left font ',8' tc rgb '#d62728' noenhanced
set label 'd2' at 8847.36,-47.5038893 left font ',8' tc rgb '#17becf' noenhanced
set label 'd1' at 8847.36,-25.6102227 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd3' at 8847.36,-3.71655609 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,18.1771105 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,40.0707772 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,61.9644438 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,83.8581104 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,105.751777 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,136.103321 left font ',8' tc rgb '#c5b0d5' noenhanced
set label 'sdpa-flash' at 8847.36,295.973173 left font ',8' tc rgb '#c49c94' noenhanced
set label 'd4' at 8847.36,351.667325 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-cudnn' at 8847.36,429.972538 left font ',8' tc rgb '#ff9896' noenhanced
set label 'cudnn' at 8847.36,451.866205 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,495.037912 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 16 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 16 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 16 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 17 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 17 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 17 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 18 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 18 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 18 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 19 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 19 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 19 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 20 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 20 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 20 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 21 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 21 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 21 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 22 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 22 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 22 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 23 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 23 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 23 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 24 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 24 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 24 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 25 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 25 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 25 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 26 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 26 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 26 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 27 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 27 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 27 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 28 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 28 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 28 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#98df8a', \
     'tflops_vs_s.dat' index 29 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 29 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 29 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 30 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 30 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 30 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 31 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 31 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 31 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94'

unset label
set title 'D = 128, log axis: every phase'
set logscale y
set yrange [1:1000]
set label 'd1' at 8847.36,2.01651294 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd2' at 8847.36,2.55035721 left font ',8' tc rgb '#17becf' noenhanced
set label 'd3' at 8847.36,12.654718 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,16.0048818 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,20.2419557 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,25.6007371 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,54.2181859 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,116.579636 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,147.442503 left font ',8' tc rgb '#c5b0d5' noenhanced
set label '3c' at 8847.36,186.475892 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 8847.36,235.842839 left font ',8' tc rgb '#d62728' noenhanced
set label 'd4' at 8847.36,298.279011 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-flash' at 8847.36,377.244306 left font ',8' tc rgb '#c49c94' noenhanced
set label 'sdpa-cudnn' at 8847.36,477.114586 left font ',8' tc rgb '#ff9896' noenhanced
set label 'cudnn' at 8847.36,603.424159 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,763.172467 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 32 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 32 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 32 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 33 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 33 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 33 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 34 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 34 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 34 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 35 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 35 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 35 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 36 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 36 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 36 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 37 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 37 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 37 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 38 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 38 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 38 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 39 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 39 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 39 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 40 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 40 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 40 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 41 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 41 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 41 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 42 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 42 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 42 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 43 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 43 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 43 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 44 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 44 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 44 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#98df8a', \
     'tflops_vs_s.dat' index 45 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 45 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 45 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 46 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 46 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 46 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 47 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 47 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 47 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94'

unset label
set title 'D = 128, linear axis: near-equal figures apart'
unset logscale y
set yrange [0:806.899194]
set label 'd1' at 8847.36,-63.4716344 left font ',8' tc rgb '#bcbd22' noenhanced
set label 'd2' at 8847.36,-36.0370618 left font ',8' tc rgb '#17becf' noenhanced
set label 'd3' at 8847.36,-8.60248921 left font ',8' tc rgb '#aec7e8' noenhanced
set label '2' at 8847.36,18.8320834 left font ',8' tc rgb '#ff7f0e' noenhanced
set label '1' at 8847.36,46.266656 left font ',8' tc rgb '#1f77b4' noenhanced
set label '4' at 8847.36,73.7012286 left font ',8' tc rgb '#8c564b' noenhanced
set label '3a' at 8847.36,101.135801 left font ',8' tc rgb '#2ca02c' noenhanced
set label '4x' at 8847.36,134.690947 left font ',8' tc rgb '#e377c2' noenhanced
set label 'sdpa-efficient' at 8847.36,162.12552 left font ',8' tc rgb '#c5b0d5' noenhanced
set label '3c' at 8847.36,189.560093 left font ',8' tc rgb '#9467bd' noenhanced
set label '3b' at 8847.36,216.994665 left font ',8' tc rgb '#d62728' noenhanced
set label 'd4' at 8847.36,291.303568 left font ',8' tc rgb '#ffbb78' noenhanced
set label 'sdpa-flash' at 8847.36,335.307022 left font ',8' tc rgb '#c49c94' noenhanced
set label 'sdpa-cudnn' at 8847.36,566.25122 left font ',8' tc rgb '#ff9896' noenhanced
set label 'cudnn' at 8847.36,593.685793 left font ',8' tc rgb '#98df8a' noenhanced
set label '5' at 8847.36,621.120365 left font ',8' tc rgb '#7f7f7f' noenhanced
plot 'tflops_vs_s.dat' index 48 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 48 using 1:2:5 with points pt variable ps 1.1 lc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 48 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#1f77b4', \
     'tflops_vs_s.dat' index 49 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 49 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 49 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff7f0e', \
     'tflops_vs_s.dat' index 50 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 50 using 1:2:5 with points pt variable ps 1.1 lc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 50 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#2ca02c', \
     'tflops_vs_s.dat' index 51 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 51 using 1:2:5 with points pt variable ps 1.1 lc rgb '#d62728', \
     'tflops_vs_s.dat' index 51 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#d62728', \
     'tflops_vs_s.dat' index 52 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 52 using 1:2:5 with points pt variable ps 1.1 lc rgb '#9467bd', \
     'tflops_vs_s.dat' index 52 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#9467bd', \
     'tflops_vs_s.dat' index 53 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 53 using 1:2:5 with points pt variable ps 1.1 lc rgb '#8c564b', \
     'tflops_vs_s.dat' index 53 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#8c564b', \
     'tflops_vs_s.dat' index 54 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 54 using 1:2:5 with points pt variable ps 1.1 lc rgb '#e377c2', \
     'tflops_vs_s.dat' index 54 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#e377c2', \
     'tflops_vs_s.dat' index 55 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 55 using 1:2:5 with points pt variable ps 1.1 lc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 55 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#7f7f7f', \
     'tflops_vs_s.dat' index 56 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 56 using 1:2:5 with points pt variable ps 1.1 lc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 56 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#bcbd22', \
     'tflops_vs_s.dat' index 57 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 57 using 1:2:5 with points pt variable ps 1.1 lc rgb '#17becf', \
     'tflops_vs_s.dat' index 57 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#17becf', \
     'tflops_vs_s.dat' index 58 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 58 using 1:2:5 with points pt variable ps 1.1 lc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 58 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#aec7e8', \
     'tflops_vs_s.dat' index 59 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 59 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 59 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ffbb78', \
     'tflops_vs_s.dat' index 60 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 60 using 1:2:5 with points pt variable ps 1.1 lc rgb '#98df8a', \
     'tflops_vs_s.dat' index 60 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#98df8a', \
     'tflops_vs_s.dat' index 61 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 61 using 1:2:5 with points pt variable ps 1.1 lc rgb '#ff9896', \
     'tflops_vs_s.dat' index 61 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#ff9896', \
     'tflops_vs_s.dat' index 62 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 62 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 62 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c5b0d5', \
     'tflops_vs_s.dat' index 63 using 1:2:3:4 with yerrorlines pt -1 lw 2 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 63 using 1:2:5 with points pt variable ps 1.1 lc rgb '#c49c94', \
     'tflops_vs_s.dat' index 63 using 1:2:7 with labels offset 0,-0.9 font ',6' noenhanced tc rgb '#c49c94'
unset multiplot
